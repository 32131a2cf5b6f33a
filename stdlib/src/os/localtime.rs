//! Local time for `os.date` and `os.time`: the time zone of the `TZ`
//! environment variable or `/etc/localtime`, read with std only (no libc).
//!
//! # Design
//!
//! [`Zone::from_env`] resolves the zone as glibc's `tzset` does:
//! * `TZ` unset: the TZif file `/etc/localtime`;
//! * `TZ` empty: UTC;
//! * `TZ=:name` or `TZ=name`: the TZif file `name` (absolute, or relative
//!   to `/usr/share/zoneinfo`); failing that, `name` parsed as a POSIX TZ
//!   string (`CET-1CEST,M3.5.0,M10.5.0/3`);
//! * anything unusable: UTC.
//!
//! A TZif zone (versions 1 to 4, the 64-bit data when present) maps a time
//! to a local-time type by binary search over its transitions; before the
//! first transition the first standard-time type applies, and after the
//! last one the file's footer (a POSIX TZ string) does, as in glibc's
//! `tzfile.c`. A POSIX rule decides daylight time per UTC year, from the
//! `Jn`, `n` and `Mm.w.d` rule forms with optional `/time`.
//!
//! [`Zone::mktime`] inverts the mapping like glibc's `mktime`: the fields
//! are first read as a UTC time (with the normalization of
//! [`strftime::timegm`], seconds clamped to `0..=59`), then shifted by the
//! zone's offset at that guess, refined once; a requested `isdst` that
//! disagrees with the result makes it use the offset of the nearest time
//! that has the requested flag, probed as glibc does (or, when none is
//! found, shift one hour, glibc's fallback); the seconds beyond `0..=59` are added last.
//!
//! # Limitations
//!
//! Leap-second zones (`right/...`) are read without their leap records.
//! Locales other than C are not supported (names are the C ones).

use crate::strftime::{self, Tm};

/// One local-time type: UTC offset, daylight flag, abbreviation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalType {
    /// Seconds east of UTC.
    pub utoff: i64,
    /// Whether this is daylight saving time.
    pub isdst: bool,
    /// The abbreviation (`%Z`).
    pub abbr: Vec<u8>,
}

/// A daylight-time rule date of a POSIX TZ string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RuleDate {
    /// `Jn`: day 1..=365, February 29 never counted.
    Julian(i64),
    /// `n`: day 0..=365, February 29 counted.
    Zero(i64),
    /// `Mm.w.d`: weekday `d` of week `w` (5 = last) of month `m`.
    Month(i64, i64, i64),
}

/// A rule date with its time of day in seconds.
type Rule = (RuleDate, i64);

/// The daylight part of a POSIX TZ string: type, start and end rules.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dst {
    typ: LocalType,
    start: Rule,
    end: Rule,
}

/// A POSIX TZ string: standard type, and daylight type with its rules.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Posix {
    std: LocalType,
    dst: Option<Dst>,
}

/// A time zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Zone {
    /// UTC, with the abbreviation `UTC`.
    Utc,
    /// A POSIX TZ rule.
    Rule(Box<PosixZone>),
    /// A TZif file.
    File(Box<TzFile>),
}

/// A parsed POSIX TZ string (opaque).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PosixZone(Posix);

/// A parsed TZif file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TzFile {
    transitions: Vec<i64>,
    indices: Vec<u8>,
    types: Vec<LocalType>,
    footer: Option<Posix>,
}

const ZONEINFO: &str = "/usr/share/zoneinfo";

impl Zone {
    /// The zone of the environment (see the module docs).
    pub fn from_env() -> Zone {
        match std::env::var_os("TZ") {
            None => Zone::from_file("/etc/localtime").unwrap_or(Zone::Utc),
            Some(v) => Zone::from_tz(v.to_string_lossy().as_ref()),
        }
    }

    /// The zone named by a `TZ` value.
    pub fn from_tz(tz: &str) -> Zone {
        if tz.is_empty() {
            return Zone::Utc;
        }
        let name = tz.strip_prefix(':').unwrap_or(tz);
        let path =
            if name.starts_with('/') { name.to_owned() } else { format!("{ZONEINFO}/{name}") };
        if !name.contains("..") {
            if let Some(z) = Zone::from_file(&path) {
                return z;
            }
        }
        match parse_posix(name.as_bytes()) {
            Some(p) => Zone::Rule(Box::new(PosixZone(p))),
            None => Zone::Utc,
        }
    }

    /// A zone read from a TZif file.
    pub fn from_file(path: &str) -> Option<Zone> {
        let data = std::fs::read(path).ok()?;
        parse_tzif(&data).map(|f| Zone::File(Box::new(f)))
    }

    /// The local-time type in force at time `t`.
    pub fn type_at(&self, t: i64) -> LocalType {
        match self {
            Zone::Utc => LocalType { utoff: 0, isdst: false, abbr: b"UTC".to_vec() },
            Zone::Rule(p) => posix_type(&p.0, t),
            Zone::File(f) => file_type(f, t),
        }
    }

    /// `localtime`: the local fields of `t` and the zone abbreviation, or
    /// `None` when the year does not fit.
    pub fn localtime(&self, t: i64) -> Option<(Tm, Vec<u8>)> {
        let lt = self.type_at(t);
        let mut tm = strftime::gmtime(t.checked_add(lt.utoff)?)?;
        tm.isdst = i32::from(lt.isdst);
        tm.gmtoff = lt.utoff;
        Some((tm, lt.abbr))
    }

    /// `mktime`: the time of local fields `tm` (normalizing them), or
    /// `None` when it cannot be represented.
    pub fn mktime(&self, tm: &Tm) -> Option<(i64, Tm)> {
        if *self == Zone::Utc {
            return strftime::timegm(tm);
        }
        // As glibc: find the offset for the fields with the seconds
        // clamped to 0..=59, then add the excess seconds.
        let clamped = tm.sec.clamp(0, 59);
        let plain = Tm { sec: clamped, isdst: 0, ..*tm };
        let (tu, _) = strftime::timegm(&plain)?;
        let guess = tu.checked_sub(self.type_at(tu).utoff)?;
        let mut t = tu.checked_sub(self.type_at(guess).utoff)?;
        let found = self.type_at(t);
        if tm.isdst >= 0 && found.isdst != (tm.isdst > 0) {
            t = match self.probe_dst(t, tm.isdst > 0) {
                Some(off) => tu.checked_sub(off)?,
                // No time with the requested flag: assume a one-hour shift.
                None if tm.isdst > 0 => t.checked_sub(3600)?,
                None => t.checked_add(3600)?,
            };
        }
        let t = t.checked_add(i64::from(tm.sec) - i64::from(clamped))?;
        self.localtime(t).map(|(norm, _)| (t, norm))
    }

    /// The UTC offset of a neighbouring time whose daylight flag is
    /// `dst`, probed as glibc's `mktime` does (strides of 601200 s, both
    /// directions, up to about 7 years away).
    fn probe_dst(&self, t: i64, dst: bool) -> Option<i64> {
        const STRIDE: i64 = 601_200;
        const BOUND: i64 = 457_243_200 / 2 + STRIDE;
        let mut delta = STRIDE;
        while delta < BOUND {
            for ot in [t.checked_sub(delta), t.checked_add(delta)].into_iter().flatten() {
                let lt = self.type_at(ot);
                if lt.isdst == dst {
                    return Some(lt.utoff);
                }
            }
            delta += STRIDE;
        }
        None
    }
}

// ----- TZif -----------------------------------------------------------------

/// Big-endian reader over a byte slice.
struct Bytes<'a> {
    d: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.d.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }

    fn u32(&mut self) -> Option<usize> {
        let b = self.take(4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn int(&mut self, wide: bool) -> Option<i64> {
        if wide {
            let b = self.take(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            Some(i64::from_be_bytes(a))
        } else {
            let b = self.take(4)?;
            Some(i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]])))
        }
    }
}

/// The six counts of a TZif header.
struct Counts {
    isut: usize,
    isstd: usize,
    leap: usize,
    time: usize,
    typ: usize,
    chars: usize,
}

fn header(r: &mut Bytes<'_>) -> Option<(u8, Counts)> {
    let h = r.take(20)?;
    if &h[..4] != b"TZif" {
        return None;
    }
    let version = h[4];
    let c = Counts {
        isut: r.u32()?,
        isstd: r.u32()?,
        leap: r.u32()?,
        time: r.u32()?,
        typ: r.u32()?,
        chars: r.u32()?,
    };
    // No count can exceed the file's size (guards the allocations).
    let n = r.d.len();
    let sane = [c.isut, c.isstd, c.leap, c.time, c.typ, c.chars].iter().all(|&x| x <= n);
    sane.then_some((version, c))
}

/// Reads one data block (`wide`: 64-bit times).
fn data_block(r: &mut Bytes<'_>, c: &Counts, wide: bool) -> Option<TzFile> {
    let transitions = (0..c.time).map(|_| r.int(wide)).collect::<Option<Vec<_>>>()?;
    let indices = r.take(c.time)?.to_vec();
    let mut raw = Vec::with_capacity(c.typ);
    for _ in 0..c.typ {
        let off = r.int(false)?;
        let b = r.take(2)?;
        raw.push((off, b[0] != 0, b[1] as usize));
    }
    let chars = r.take(c.chars)?;
    r.take(c.leap.checked_mul(if wide { 12 } else { 8 })?)?;
    r.take(c.isstd)?;
    r.take(c.isut)?;
    let types = raw
        .into_iter()
        .map(|(utoff, isdst, i)| {
            let a = chars.get(i..).unwrap_or(&[]);
            let end = a.iter().position(|&c| c == 0).unwrap_or(a.len());
            LocalType { utoff, isdst, abbr: a[..end].to_vec() }
        })
        .collect::<Vec<_>>();
    if types.is_empty() || indices.iter().any(|&i| usize::from(i) >= types.len()) {
        return None;
    }
    Some(TzFile { transitions, indices, types, footer: None })
}

/// Parses a TZif file.
fn parse_tzif(d: &[u8]) -> Option<TzFile> {
    let mut r = Bytes { d, pos: 0 };
    let (version, c) = header(&mut r)?;
    let v1 = data_block(&mut r, &c, false)?;
    if version < b'2' {
        return Some(v1);
    }
    let (_, c2) = header(&mut r)?;
    let mut f = data_block(&mut r, &c2, true)?;
    let rest = &d[r.pos..];
    if let Some(body) = rest.strip_prefix(b"\n") {
        let end = body.iter().position(|&c| c == b'\n').unwrap_or(body.len());
        f.footer = parse_posix(&body[..end]);
    }
    Some(f)
}

/// The type in force at `t` in a TZif zone (glibc's `__tzfile_compute`).
fn file_type(f: &TzFile, t: i64) -> LocalType {
    if f.transitions.is_empty() || t < f.transitions[0] {
        let i = f.types.iter().position(|ty| !ty.isdst).unwrap_or(0);
        return f.types[i].clone();
    }
    let last = f.transitions.len() - 1;
    if t >= f.transitions[last] {
        if let Some(p) = &f.footer {
            return posix_type(p, t);
        }
    }
    let i = f.transitions.partition_point(|&x| x <= t) - 1;
    f.types[usize::from(f.indices[i])].clone()
}

// ----- POSIX TZ strings -----------------------------------------------------------

/// A cursor over a TZ string.
struct Cur<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Option<i64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        if self.i == start || self.i - start > 6 {
            return None;
        }
        std::str::from_utf8(&self.s[start..self.i]).ok()?.parse().ok()
    }

    /// A zone name: three or more letters, or `<...>`.
    fn name(&mut self) -> Option<Vec<u8>> {
        if self.eat(b'<') {
            let start = self.i;
            while self.peek().is_some_and(|c| c != b'>') {
                self.i += 1;
            }
            let n = self.s[start..self.i].to_vec();
            return self.eat(b'>').then_some(n);
        }
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        (self.i - start >= 3).then(|| self.s[start..self.i].to_vec())
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    fn hms(&mut self) -> Option<i64> {
        let sign = if self.eat(b'-') {
            -1
        } else {
            self.eat(b'+');
            1
        };
        let mut secs = self.number()? * 3600;
        if self.eat(b':') {
            secs += self.number()? * 60;
            if self.eat(b':') {
                secs += self.number()?;
            }
        }
        Some(sign * secs)
    }

    /// `,date[/time]`.
    fn rule(&mut self) -> Option<Rule> {
        if !self.eat(b',') {
            return None;
        }
        let date = if self.eat(b'J') {
            RuleDate::Julian(self.number()?)
        } else if self.eat(b'M') {
            let m = self.number()?;
            self.eat(b'.').then_some(())?;
            let w = self.number()?;
            self.eat(b'.').then_some(())?;
            RuleDate::Month(m, w, self.number()?)
        } else {
            RuleDate::Zero(self.number()?)
        };
        let time = if self.eat(b'/') { self.hms()? } else { 7200 };
        Some((date, time))
    }
}

/// Parses a POSIX TZ string (`std offset [dst [offset] [,start,end]]`).
fn parse_posix(s: &[u8]) -> Option<Posix> {
    let mut c = Cur { s, i: 0 };
    let std_name = c.name()?;
    let std_off = -c.hms()?;
    let std = LocalType { utoff: std_off, isdst: false, abbr: std_name };
    if c.peek().is_none() {
        return Some(Posix { std, dst: None });
    }
    let dst_name = c.name()?;
    let dst_off = match c.peek() {
        Some(b',') | None => std_off + 3600,
        _ => -c.hms()?,
    };
    let dst = LocalType { utoff: dst_off, isdst: true, abbr: dst_name };
    let (start, end) = if c.peek().is_none() {
        ((RuleDate::Month(3, 2, 0), 7200), (RuleDate::Month(11, 1, 0), 7200))
    } else {
        (c.rule()?, c.rule()?)
    };
    if c.peek().is_some() {
        return None;
    }
    Some(Posix { std, dst: Some(Dst { typ: dst, start, end }) })
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days from 1970-01-01 to January 1 of year `y`.
fn year_start(y: i64) -> i64 {
    let t = Tm { year: (y - 1900) as i32, mday: 1, ..Tm::default() };
    strftime::timegm(&t).map_or(0, |(s, _)| s.div_euclid(86_400))
}

/// Seconds from 1970 to 00:00 of the rule's day in year `y`. As in
/// glibc's `compute_change`, years up to 1970 count their days from
/// 1970-01-01 (so rules take effect only from 1970 on).
fn rule_day(y: i64, r: RuleDate) -> i64 {
    let real_jan1 = year_start(y);
    let jan1 = if y > 1970 { real_jan1 } else { 0 };
    let day = match r {
        RuleDate::Julian(n) => n - 1 + i64::from(is_leap(y) && n >= 60),
        RuleDate::Zero(n) => n,
        RuleDate::Month(m, w, d) => {
            const DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
            let m = m.clamp(1, 12) as usize;
            let before: i64 = DAYS[..m - 1].iter().sum::<i64>() + i64::from(is_leap(y) && m > 2);
            let len = DAYS[m - 1] + i64::from(is_leap(y) && m == 2);
            let first_wday = (real_jan1 + before + 4).rem_euclid(7);
            let mut mday = (d - first_wday).rem_euclid(7) + (w.clamp(1, 5) - 1) * 7;
            while mday >= len {
                mday -= 7;
            }
            before + mday
        }
    };
    (jan1 + day) * 86_400
}

/// The type in force at `t` under a POSIX rule (glibc's `__tz_compute`).
fn posix_type(p: &Posix, t: i64) -> LocalType {
    let Some(dst) = &p.dst else { return p.std.clone() };
    let year = strftime::gmtime(t).map_or(1970, |tm| i64::from(tm.year) + 1900);
    let start = rule_day(year, dst.start.0) + dst.start.1 - p.std.utoff;
    let end = rule_day(year, dst.end.0) + dst.end.1 - dst.typ.utoff;
    let in_dst = if start < end { start <= t && t < end } else { !(end <= t && t < start) };
    if in_dst {
        dst.typ.clone()
    } else {
        p.std.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_rules() {
        let z = Zone::from_tz("CET-1CEST,M3.5.0,M10.5.0/3");
        // 2020-07-01 10:00 UTC is summer time in Paris.
        assert_eq!(z.type_at(1_593_597_600).abbr, b"CEST");
        assert_eq!(z.type_at(1_577_880_000).abbr, b"CET");
        let tm = Tm { year: 120, mon: 6, mday: 1, hour: 12, isdst: -1, ..Tm::default() };
        assert_eq!(z.mktime(&tm).map(|r| r.0), Some(1_593_597_600));
        let tm = Tm { isdst: 0, ..tm };
        assert_eq!(z.mktime(&tm).map(|r| r.0), Some(1_593_601_200));
    }

    /// A version-1 TZif file: one transition at `t` from type 0 (`AAA`,
    /// +1h) to type 1 (`BBB`, +2h, daylight).
    fn tzif(t: i32) -> Vec<u8> {
        let mut d = b"TZif".to_vec();
        d.extend_from_slice(&[0; 16]);
        for n in [0u32, 0, 0, 1, 2, 8] {
            d.extend_from_slice(&n.to_be_bytes());
        }
        d.extend_from_slice(&t.to_be_bytes());
        d.push(1);
        d.extend_from_slice(&3600i32.to_be_bytes());
        d.extend_from_slice(&[0, 0]);
        d.extend_from_slice(&7200i32.to_be_bytes());
        d.extend_from_slice(&[1, 4]);
        d.extend_from_slice(b"AAA\0BBB\0");
        d
    }

    #[test]
    fn tzif_files() {
        let f = parse_tzif(&tzif(1000)).expect("valid file");
        let z = Zone::File(Box::new(f));
        assert_eq!(z.type_at(999).abbr, b"AAA");
        assert_eq!(z.type_at(1000).abbr, b"BBB");
        assert_eq!(z.localtime(1000).map(|(tm, _)| tm.hour), Some(2));
        let data = tzif(1000);
        for n in 0..data.len() {
            assert!(parse_tzif(&data[..n]).is_none());
        }
        let mut huge = data.clone();
        huge[32..36].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(parse_tzif(&huge).is_none());
    }

    #[test]
    fn bad_strings_are_utc() {
        assert_eq!(Zone::from_tz(""), Zone::Utc);
        assert_eq!(Zone::from_tz("1234"), Zone::Utc);
        assert!(parse_posix(b"EST5EDT").is_some());
        assert!(parse_posix(b"<+03>-3").is_some());
    }
}
