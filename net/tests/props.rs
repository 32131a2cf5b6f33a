//! Property tests: no bytes make the decoder or the server panic, and a
//! bogus frame always closes its session with a reason.

use luprex_engine::{Model, World};
use luprex_net::protocol::{decode_down, decode_up, encode, Hello, Up, PROTOCOL_VERSION};
use luprex_net::{HashCost, Registry, ServerConfig, ServerCore};
use proptest::prelude::*;

fn core() -> ServerCore {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/worlds/arena");
    let w = World::from_dir(Model::Master, dir).unwrap();
    ServerCore::new(w, ServerConfig::default(), Registry::new(HashCost::test()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode_up(&bytes);
        let _ = decode_down(&bytes);
    }

    #[test]
    fn server_survives_any_frames(frames in proptest::collection::vec(
        proptest::collection::vec(any::<u8>(), 0..64), 1..8)) {
        let mut c = core();
        let live = c.open();
        let h = Hello { version: PROTOCOL_VERSION, name: "p".into(), secret: "s".into(), sources: 0 };
        c.receive(live, &encode(&Up::Hello(h)));
        let fresh = c.open();
        for f in &frames {
            c.receive(live, f);
            c.receive(fresh, f);
            c.tick();
        }
        for (sid, reason) in c.take_closed() {
            prop_assert!(!reason.is_empty());
            prop_assert!(!c.take_outbox(sid).is_empty());
        }
    }
}
