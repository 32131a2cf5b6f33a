//! The `state` message: what the page draws, read from the client's
//! asynchronous model (the predicted World).
//!
//! ```text
//! {"t":"state", "player":3, "tick":120, "tick_hz":20, "radius":12,
//!  "pos":[x,y,z],                       the player's position at `tick`
//!  "things":[{"id":3,"class":"player","name":"ann","glyph":"@","color":"hsl(..)",
//!             "steps":[[tick,x,y,z],...],  its animation queue
//!             "actions":[{"name":"chop","args":false}], "plans":[]}, ...],
//!  "legend":[{"class":"player","glyph":"@","color":"...","count":2}, ...],
//!  "status":{"connection":"connected","latency_ms":42,"pending":0,
//!            "mispredictions":0}}
//! ```
//!
//! The page animates: it keeps a clock in ticks (running at `tick_hz`,
//! pulled towards each message's `tick`) and draws every tangible at its
//! animation queue's point for that clock, with the engine's rule
//! (`AnimationQueue::position_at`: linear between steps, the first step
//! before it, the last after it), so movement is smooth between messages
//! and between ticks instead of jumping once per tick.
//!
//! Invariants: building the message only reads the World (`tui::lookup`),
//! so its state hash stays the server's; the things are the tangibles
//! within the view radius, nearest first (ties by ID), and the legend is
//! sorted by class name, so the message is a function of the model alone
//! (no hash-map order). A class's colour is a fixed function of its name
//! (FNV-1a), the same on every client.

use crate::tui::lookup::{self, Method, Scene};
use crate::tui::{Connection, Status};
use luprex_engine::World;
use serde::Serialize;
use std::collections::BTreeMap;

/// One tangible as the page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThingMsg {
    pub id: u64,
    pub class: String,
    /// The tangible's own `name` field, if it is a string.
    pub name: Option<String>,
    pub glyph: String,
    pub color: String,
    /// The animation queue: `[tick, x, y, z]`, first to last.
    pub steps: Vec<[f64; 4]>,
    pub actions: Vec<ActionMsg>,
    pub plans: Vec<String>,
}

/// A method the tangible offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActionMsg {
    pub name: String,
    /// Whether it wants arguments (the page then fills the command line
    /// instead of invoking at once).
    pub args: bool,
}

/// One class of the legend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LegendMsg {
    pub class: String,
    pub glyph: String,
    pub color: String,
    /// How many of the things shown are of this class.
    pub count: usize,
}

/// The indicators.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatusMsg {
    pub connection: String,
    pub latency_ms: Option<u32>,
    pub pending: usize,
    pub mispredictions: u64,
}

/// The whole `state` message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateMsg {
    pub t: &'static str,
    pub player: u64,
    pub tick: i64,
    pub tick_hz: u32,
    pub radius: f64,
    pub pos: Option<[f64; 3]>,
    pub things: Vec<ThingMsg>,
    pub legend: Vec<LegendMsg>,
    pub status: StatusMsg,
}

/// What one class contributes (read once per class per message).
struct ClassInfo {
    glyph: String,
    color: String,
    actions: Vec<ActionMsg>,
    plans: Vec<String>,
    count: usize,
}

/// The colour of a class: a hue from the FNV-1a hash of its name.
pub fn class_color(class: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in class.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("hsl({}, 60%, 62%)", h % 360)
}

/// Builds the state message for `player` from the model `w`, showing the
/// tangibles within `radius` (without changing `w`).
pub fn state(w: &mut World, player: u64, radius: f64, tick_hz: u32, status: &Status) -> StateMsg {
    let scene = Scene::capture(w, player, radius);
    let mut classes: BTreeMap<String, ClassInfo> = BTreeMap::new();
    let mut things = Vec::with_capacity(scene.things.len());
    for t in &scene.things {
        let info = classes.entry(t.class.clone()).or_insert_with(|| ClassInfo {
            glyph: t.glyph.to_string(),
            color: class_color(&t.class),
            actions: lookup::methods(w, t.id)
                .into_iter()
                .map(|Method { name, takes_args }| ActionMsg { name, args: takes_args })
                .collect(),
            plans: lookup::plans(w, t.id),
            count: 0,
        });
        info.count += 1;
        let steps = match w.tangibles().get(t.id) {
            Some(tg) => tg.queue.steps().iter().map(|s| step(s.tick, s.pos)).collect(),
            None => vec![step(scene.tick, t.pos)],
        };
        things.push(ThingMsg {
            id: t.id,
            class: t.class.clone(),
            name: lookup::tangible_name(w, t.id),
            glyph: info.glyph.clone(),
            color: info.color.clone(),
            steps,
            actions: info.actions.clone(),
            plans: info.plans.clone(),
        });
    }
    let legend = classes
        .into_iter()
        .map(|(class, i)| LegendMsg { class, glyph: i.glyph, color: i.color, count: i.count })
        .collect();
    StateMsg {
        t: "state",
        player,
        tick: scene.tick,
        tick_hz,
        radius,
        pos: scene.center,
        things,
        legend,
        status: status_msg(status),
    }
}

fn step(tick: i64, pos: [f64; 3]) -> [f64; 4] {
    [tick as f64, pos[0], pos[1], pos[2]]
}

fn status_msg(s: &Status) -> StatusMsg {
    let connection = match &s.connection {
        Connection::Connecting => "connecting".to_owned(),
        Connection::Connected => "connected".to_owned(),
        Connection::Lost(why) => format!("lost: {why}"),
    };
    StatusMsg {
        connection,
        latency_ms: s.latency_ms,
        pending: s.pending,
        mispredictions: s.mispredictions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::lookup::tests::world;

    #[test]
    fn the_state_of_a_small_world() {
        let (mut w, ann) = world();
        let before = w.state_hash();
        let status = Status { connection: Connection::Connected, ..Status::default() };
        let msg = state(&mut w, ann, 10.0, 20, &status);
        assert_eq!(w.state_hash(), before, "reading the scene changes nothing");
        assert_eq!((msg.t, msg.player, msg.tick_hz, msg.pos), ("state", ann, 20, Some([0.0; 3])));
        let order: Vec<(&str, &str)> =
            msg.things.iter().map(|t| (t.class.as_str(), t.glyph.as_str())).collect();
        assert_eq!(order, [("player", "@"), ("rock", "r"), ("tree", "T"), ("tree", "T")]);
        let legend: Vec<(&str, usize)> =
            msg.legend.iter().map(|l| (l.class.as_str(), l.count)).collect();
        assert_eq!(legend, [("player", 1), ("rock", 1), ("tree", 2)], "sorted, far tree left out");
        let me = &msg.things[0];
        let say = ActionMsg { name: "say".into(), args: true };
        assert_eq!(me.actions, [say]);
        let tree = &msg.things[2];
        assert_eq!(tree.actions, [ActionMsg { name: "chop".into(), args: false }]);
        assert!(tree.plans.is_empty());
        assert_eq!(msg.things[1].actions, [], "the rock offers nothing");
        assert_eq!(tree.color, class_color("tree"));
        assert_ne!(class_color("tree"), class_color("rock"));
        assert_eq!(msg.status.connection, "connected");
        assert_eq!(me.name, None, "the test world names nobody");
    }

    #[test]
    fn a_walk_is_sent_as_its_animation_queue() {
        let (mut w, ann) = world();
        let now = w.now();
        w.move_to(ann, [4.0, 0.0, 0.0], 8).unwrap();
        let msg = state(&mut w, ann, 10.0, 20, &Status::default());
        let me = msg.things.iter().find(|t| t.id == ann).unwrap();
        let t0 = now as f64;
        assert_eq!(me.steps, [[t0, 0.0, 0.0, 0.0], [t0 + 8.0, 4.0, 0.0, 0.0]]);
        let json = serde_json::to_string(&msg).unwrap();
        assert!(json.starts_with(r#"{"t":"state","player":"#), "{json}");
    }

    #[test]
    fn plans_of_the_action_table() {
        use luprex_engine::{Model, SourceFile};
        let mut w = World::new(Model::Master).unwrap();
        let src = r#"
            local torch = maketangible("torch")
            function torch.action.light(self) end
            function torch.action.douse(self) end
            local player = maketangible("player")
            function player:onjoin(name) self.name = name end
        "#;
        w.load_sources(&[SourceFile::new("t.lua", src)]).unwrap();
        let me = w.admit("ann").unwrap().id;
        w.new_tangible("torch", [1.0, 0.0, 0.0]).unwrap();
        let msg = state(&mut w, me, 10.0, 20, &Status::default());
        let torch = msg.things.iter().find(|t| t.class == "torch").unwrap();
        assert_eq!(torch.plans, ["douse", "light"]);
        let ann = msg.things.iter().find(|t| t.id == me).unwrap();
        assert_eq!(ann.name.as_deref(), Some("ann"), "a tangible's own name field");
    }
}
