//! Tests of the matcher: cases generated against lua5.4, and the
//! search's lead skip checked against attempts at every position.

use super::*;

/// Decodes a hex string from the test data.
fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Serializes captures like the Lua generator: `s:<hex>` or `i:<n>`.
fn ser_caps(subject: &[u8], caps: &[Capture], out: &mut Vec<String>) {
    for c in caps {
        out.push(match *c {
            Capture::Range(a, b) => format!("s:{}", hex(&subject[a..b])),
            Capture::Position(p) => format!("i:{}", p + 1),
        });
    }
}

fn err(e: PatternError) -> String {
    format!("E:{}", hex(e.to_string().as_bytes()))
}

fn run_find(subject: &[u8], pattern: &[u8], init: i64, plain: bool) -> String {
    let Some(off) = start_offset(init, subject.len()) else {
        return "N".into();
    };
    match find(subject, pattern, off, plain, &mut Unmetered) {
        Err(e) => err(e),
        Ok(None) => "N".into(),
        Ok(Some(f)) => {
            let mut v = vec![format!("i:{}", f.start + 1), format!("i:{}", f.end)];
            ser_caps(subject, &f.captures, &mut v);
            v.join(" ")
        }
    }
}

fn run_match(subject: &[u8], pattern: &[u8], init: i64) -> String {
    let Some(off) = start_offset(init, subject.len()) else {
        return "N".into();
    };
    match match_pattern(subject, pattern, off, &mut Unmetered) {
        Err(e) => err(e),
        Ok(None) => "N".into(),
        Ok(Some(c)) => {
            let mut v = Vec::new();
            ser_caps(subject, &c, &mut v);
            v.join(" ")
        }
    }
}

fn run_gmatch(subject: &[u8], pattern: &[u8], init: i64) -> String {
    let mut g = GMatch::new(subject.len(), init);
    let mut parts = Vec::new();
    for _ in 0..50 {
        match g.next(subject, pattern, &mut Unmetered) {
            Err(e) => {
                parts.push(err(e));
                break;
            }
            Ok(None) => break,
            Ok(Some(c)) => {
                let mut v = Vec::new();
                ser_caps(subject, &c, &mut v);
                parts.push(format!("[{}]", v.join(" ")));
            }
        }
    }
    parts.join(" ")
}

fn run_gsub(subject: &[u8], pattern: &[u8], repl: &[u8], max: Option<i64>) -> String {
    match gsub_str(subject, pattern, repl, max, &mut Unmetered) {
        Err(e) => err(e),
        Ok(r) => format!("s:{} i:{}", hex(&r.output), r.count),
    }
}

/// The replacement function used by the generator: `<c1,c2,...>` where
/// strings are written raw and positions in decimal; `nil` (original
/// kept) when the first capture is the empty string.
fn run_gsubf(subject: &[u8], pattern: &[u8], max: Option<i64>) -> String {
    let r = gsub_with(subject, pattern, max, &mut Unmetered, |m, out| {
        let caps = m.captures()?;
        if matches!(caps.first(), Some(Capture::Range(a, b)) if a == b) {
            out.extend_from_slice(&subject[m.start()..m.end()]);
            return Ok(false);
        }
        out.push(b'<');
        for (i, c) in caps.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match *c {
                Capture::Range(a, b) => out.extend_from_slice(&subject[a..b]),
                Capture::Position(p) => out.extend_from_slice((p + 1).to_string().as_bytes()),
            }
        }
        out.push(b'>');
        Ok::<bool, PatternError>(true)
    });
    match r {
        Err(e) => err(e),
        Ok(r) => format!("s:{} i:{}", hex(&r.output), r.count),
    }
}

fn opt_int(s: &str) -> Option<i64> {
    (s != "-").then(|| s.parse().unwrap())
}

#[test]
fn generated_cases() {
    let data = include_str!("../../testdata/patterns.txt");
    let mut n = 0;
    for line in data.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (subject, pattern) = (unhex(f[1]), unhex(f[2]));
        let got = match f[0] {
            "F" => run_find(&subject, &pattern, f[3].parse().unwrap(), f[4] == "1"),
            "M" => run_match(&subject, &pattern, f[3].parse().unwrap()),
            "G" => run_gmatch(&subject, &pattern, f[3].parse().unwrap()),
            "S" => run_gsub(&subject, &pattern, &unhex(f[3]), opt_int(f[4])),
            "SF" => run_gsubf(&subject, &pattern, opt_int(f[3])),
            k => panic!("unknown kind {k}"),
        };
        let want = f[f.len() - 1];
        assert_eq!(got, want, "line {line}");
        n += 1;
    }
    assert!(n > 1000, "only {n} cases");
}

#[test]
fn specials_and_offsets() {
    assert!(!has_specials(b"abc)]"));
    assert!(has_specials(b"a.c"));
    assert_eq!(start_offset(1, 3), Some(0));
    assert_eq!(start_offset(4, 3), Some(3));
    assert_eq!(start_offset(5, 3), None);
    assert_eq!(start_offset(-1, 3), Some(2));
    assert_eq!(start_offset(i64::MIN, 3), Some(0));
    assert_eq!(start_offset(i64::MAX, 3), None);
}

#[test]
fn deep_patterns_do_not_overflow() {
    let subject = vec![b'a'; 100_000];
    let pattern = b"a?".repeat(5000);
    assert_eq!(find(&subject, &pattern, 0, false, &mut Unmetered), Err(PatternError::TooComplex));
    let nested = [b"(".repeat(40), b"a".to_vec(), b")".repeat(40)].concat();
    assert_eq!(find(b"a", &nested, 0, false, &mut Unmetered), Err(PatternError::TooManyCaptures));
    let m = match_pattern(&subject, b"(a*)%1$", 0, &mut Unmetered).unwrap().unwrap();
    assert_eq!(m, vec![Capture::Range(0, 50_000)]);
}

thread_local! {
    /// Set by the lead tests: searches try every position, and none takes
    /// the one-byte search.
    pub(super) static NO_LEAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Fuel that counts what is charged, hands out at most `grant` steps at a
/// time, and stops (as `TooComplex`) past `limit`.
struct Counted {
    used: u64,
    grant: u64,
    limit: u64,
}

impl Fuel for Counted {
    fn burn(&mut self, units: u64) -> Result<(), PatternError> {
        self.used += units;
        if self.used > self.limit {
            return Err(PatternError::TooComplex);
        }
        Ok(())
    }

    fn headroom(&self) -> u64 {
        self.grant.min(self.limit.saturating_sub(self.used)).max(1)
    }
}

/// Every search entry point on one case, as text, with the steps charged.
fn all_searches(subject: &[u8], pattern: &[u8], init: usize, grant: u64, limit: u64) -> String {
    let mut out = Vec::new();
    let mut fuel = Counted { used: 0, grant, limit };
    let r = find(subject, pattern, init, false, &mut fuel);
    out.push(format!("find {r:?} {}", fuel.used));
    fuel.used = 0;
    let r = match_pattern(subject, pattern, init, &mut fuel);
    out.push(format!("match {r:?} {}", fuel.used));
    fuel.used = 0;
    let mut g = GMatch::new(subject.len(), init as i64 + 1);
    for _ in 0..subject.len() + 2 {
        let r = g.next(subject, pattern, &mut fuel);
        out.push(format!("gmatch {r:?} {}", fuel.used));
        if !matches!(r, Ok(Some(_))) {
            break;
        }
    }
    fuel.used = 0;
    let r = gsub_str(subject, pattern, b"<%0>", None, &mut fuel);
    out.push(format!("gsub {r:?} {}", fuel.used));
    out.join("\n")
}

mod lead {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "a", "b", "ab", "[ab]", "[^a]", "[a-", "%a", "%d", "%A", ".", "(", ")", "()", "*", "+",
        "-", "?", "$", "^", "%b()", "%f[a]", "%1", "%", "%%", "]", "[%d]",
    ];

    fn pattern() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(PIECES), 1..6)
            .prop_map(|v| v.concat().into_bytes())
    }

    /// Short subjects, or long runs of `x` (which only `.`, `%a`, `%A`
    /// and `[^a]` match) between short ones, for the skip's bit set.
    fn subject() -> impl Strategy<Value = Vec<u8>> {
        let short = || prop::collection::vec(prop::sample::select(b"ab1()%".as_slice()), 0..30);
        prop_oneof![
            short(),
            (short(), 60usize..200, short()).prop_map(|(a, n, b)| [a, vec![b'x'; n], b].concat()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Passing over positions where the first item cannot match gives
        /// the same results, errors and charged steps as trying each one,
        /// also when the fuel runs out part way.
        #[test]
        fn skipping_changes_no_result_nor_charge(
            subject in subject(),
            pattern in pattern(),
            init in 0usize..32,
            grant in prop_oneof![1u64..12, Just(u64::MAX)],
            limit in prop::sample::select(vec![3u64, 10, 25, 60, u64::MAX]),
        ) {
            let init = init.min(subject.len() + 1);
            let with = all_searches(&subject, &pattern, init, grant, limit);
            NO_LEAD.with(|c| c.set(true));
            let without = all_searches(&subject, &pattern, init, grant, limit);
            NO_LEAD.with(|c| c.set(false));
            prop_assert_eq!(with, without);
        }
    }

    #[test]
    fn a_literal_lead_skips_long_runs() {
        let subject = [vec![b'x'; 10_000], b"ab".to_vec()].concat();
        let mut fuel = Counted { used: 0, grant: u64::MAX, limit: u64::MAX };
        let m = find(&subject, b"a+b", 0, false, &mut fuel).unwrap().unwrap();
        assert_eq!((m.start, m.end), (10_000, 10_002));
        // One step per position passed over, as the attempts there charged.
        assert_eq!(fuel.used, 10_000 + 3);
    }
}

mod one_byte {
    use super::*;
    use proptest::prelude::*;

    /// Patterns of one item, most of them single-byte classes without a
    /// suffix (the ones `one_byte_search` takes), some of them not.
    const ITEMS: &[&str] = &[
        ".", "a", "x", "%a", "%d", "%A", "%x", "[ab]", "[^a]", "[%d]", "[a-c]", "]", "*", "-", "+",
        "?", "^", "%%", "%.", "$", "%z", "%", "[a", "(", ")", "a*", ".-", "%a+", "()",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The one-byte search gives the same matches, errors and charged
        /// steps as the general one, for every entry point that takes it
        /// (gmatch, gsub) and the others, also when the fuel runs out or a
        /// check falls within its charge.
        #[test]
        fn one_byte_search_changes_no_result_nor_charge(
            subject in prop::collection::vec(prop::sample::select(b"ab1x.%]".as_slice()), 0..40),
            item in prop::sample::select(ITEMS),
            init in 0usize..42,
            grant in prop_oneof![1u64..12, Just(u64::MAX)],
            limit in prop::sample::select(vec![3u64, 10, 25, 60, u64::MAX]),
        ) {
            let init = init.min(subject.len() + 1);
            let pattern = item.as_bytes();
            let with = all_searches(&subject, pattern, init, grant, limit);
            NO_LEAD.with(|c| c.set(true));
            let without = all_searches(&subject, pattern, init, grant, limit);
            NO_LEAD.with(|c| c.set(false));
            prop_assert_eq!(with, without);
        }
    }
}
