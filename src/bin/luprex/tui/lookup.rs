//! Reading the client's model for the UI, without changing it.
//!
//! The UI draws from, and chooses command targets in, the client's
//! predicted World. That World must not change by being looked at: its
//! state hash is compared with the server's record of it, so even an
//! interned string or a table made by a Lua probe would be a desync. This
//! module therefore reads the VM state only through shared references
//! (`World::state`, `World::tangibles`): a field of a table is found by
//! walking its entries and comparing key bytes (no interning), which is
//! cheap for the small tables it reads (a tangible's metatable, a class,
//! the permissions of a class).
//!
//! What it reads, all defined by the engine or the scripts:
//! * a tangible's class: its metatable's `__index`, a class table, whose
//!   `__class` is its name (`docs/SCRIPTING.md` §2.1, §3);
//! * a class's glyph on the map: the class field `glyph` (a script sets
//!   `tree.glyph = "T"`), else the first letter of the class name;
//! * whether a class permits a method: the registry table `permits` maps
//!   a class table to a set of names (`permit_invoke`, §4.4).
//!
//! [`Scene`] is one frame's worth of this: the tangibles around the
//! player with their classes, glyphs and positions.

use luprex_engine::raw::{State, TableRef, Value};
use luprex_engine::World;

/// Raw field `name` of table `t` (nil if absent), found without interning.
fn field(st: &State, t: TableRef, name: &str) -> Value {
    st.table(t)
        .iter()
        .find(|(k, _)| matches!(k, Value::Str(s) if st.str_bytes(*s) == name.as_bytes()))
        .map_or(Value::Nil, |(_, v)| v)
}

fn text(st: &State, v: Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(String::from_utf8_lossy(st.str_bytes(s)).into_owned()),
        _ => None,
    }
}

/// The class table of tangible `id`.
fn class_table(w: &mut World, id: u64) -> Option<TableRef> {
    let t = w.tangible(id)?;
    let st = w.state();
    match field(st, st.metatable(Value::Table(t))?, "__index") {
        Value::Table(c) => Some(c),
        _ => None,
    }
}

/// The class name of tangible `id`.
pub fn class_name(w: &mut World, id: u64) -> Option<String> {
    let c = class_table(w, id)?;
    text(w.state(), field(w.state(), c, "__class"))
}

/// Tangible `id`'s own field `name`, if it is a string (the demo world
/// names its players so; `util.label`).
pub fn tangible_name(w: &mut World, id: u64) -> Option<String> {
    let t = w.tangible(id)?;
    let st = w.state();
    text(st, field(st, t, "name"))
}

/// The map glyph of tangible `id`'s class (`?` if it has no class).
pub fn glyph(w: &mut World, id: u64) -> char {
    let Some(c) = class_table(w, id) else { return '?' };
    let st = w.state();
    let chosen = text(st, field(st, c, "glyph")).and_then(|g| g.chars().next());
    let named = || text(st, field(st, c, "__class")).and_then(|n| n.chars().next());
    chosen.or_else(named).unwrap_or('?')
}

/// Whether tangible `id`'s class permits method `name` (`permit_invoke`).
pub fn permits(w: &mut World, id: u64, name: &str) -> bool {
    let Some(c) = class_table(w, id) else { return false };
    let st = w.state();
    let Value::Table(all) = field(st, st.registry(), "permits") else { return false };
    match st.table(all).iter().find(|(k, _)| matches!(k, Value::Table(t) if *t == c)) {
        Some((_, Value::Table(set))) => matches!(field(st, set, name), Value::Bool(true)),
        _ => false,
    }
}

/// A method a class permits (`permit_invoke`), as a client offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    pub name: String,
    /// Whether it takes arguments besides the target (more than `self`,
    /// or `...`).
    pub takes_args: bool,
}

/// The permitted methods (`permit_invoke`) of tangible `id`'s class that
/// are Lua functions, sorted by name.
pub fn methods(w: &mut World, id: u64) -> Vec<Method> {
    let Some(c) = class_table(w, id) else { return Vec::new() };
    let st = w.state();
    let Value::Table(all) = field(st, st.registry(), "permits") else { return Vec::new() };
    let Some((_, Value::Table(set))) =
        st.table(all).iter().find(|(k, _)| matches!(k, Value::Table(t) if *t == c))
    else {
        return Vec::new();
    };
    let mut out: Vec<Method> = st
        .table(set)
        .iter()
        .filter(|(_, v)| matches!(v, Value::Bool(true)))
        .filter_map(|(k, _)| text(st, k))
        .filter_map(|name| {
            let f = field(st, c, &name);
            if !matches!(f, Value::LuaFn(_)) {
                return None;
            }
            let info = st.function_info(f);
            Some(Method { name, takes_args: info.nparams > 1 || info.is_vararg })
        })
        .collect();
    out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The permitted methods (`permit_invoke`) of tangible `id`'s class that
/// take no argument besides the target (`function m(self)`), sorted: what
/// the default bot of `luprex sim` invokes.
pub fn no_arg_methods(w: &mut World, id: u64) -> Vec<String> {
    methods(w, id).into_iter().filter(|m| !m.takes_args).map(|m| m.name).collect()
}

/// The names of the plans in tangible `id`'s class's `action` table
/// (`maketangible` makes it; `docs/SCRIPTING.md` §2.2), sorted.
pub fn plans(w: &mut World, id: u64) -> Vec<String> {
    let Some(c) = class_table(w, id) else { return Vec::new() };
    let st = w.state();
    let Value::Table(action) = field(st, c, "action") else { return Vec::new() };
    let mut out: Vec<String> = st.table(action).iter().filter_map(|(k, _)| text(st, k)).collect();
    out.sort_unstable();
    out
}

/// How far around the player `/name` looks for a target.
pub const TARGET_RADIUS: f64 = 6.0;

/// The target of `/name` typed by `player`: the player itself if its class
/// permits `name`, else the nearest tangible within [`TARGET_RADIUS`]
/// whose class does (the lowest ID among equally near ones).
pub fn resolve_target(w: &mut World, player: u64, name: &str) -> Option<u64> {
    if permits(w, player, name) {
        return Some(player);
    }
    let here = w.position(player)?;
    let mut best: Option<(f64, u64)> = None;
    for id in w.scan_radius(here, TARGET_RADIUS) {
        if id == player || !permits(w, id, name) {
            continue;
        }
        let d = distance(here, w.position(id)?);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, id));
        }
    }
    best.map(|(_, id)| id)
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// One tangible as the map shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Thing {
    pub id: u64,
    pub class: String,
    pub glyph: char,
    pub pos: [f64; 3],
    /// Distance from the player.
    pub dist: f64,
}

/// What one frame shows of the world: the player and the tangibles
/// within `radius` of it (the player included), nearest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub player: u64,
    /// The player's position (`None`: the player is not in the model yet).
    pub center: Option<[f64; 3]>,
    pub tick: i64,
    pub things: Vec<Thing>,
}

impl Scene {
    /// Reads the scene around `player` from `w` (without changing `w`).
    pub fn capture(w: &mut World, player: u64, radius: f64) -> Scene {
        let tick = w.now();
        let Some(center) = w.position(player) else {
            return Scene { player, center: None, tick, things: Vec::new() };
        };
        let mut things: Vec<Thing> = w
            .scan_radius(center, radius)
            .into_iter()
            .filter_map(|id| {
                let pos = w.position(id)?;
                let class = class_name(w, id).unwrap_or_else(|| "?".into());
                Some(Thing { id, class, glyph: glyph(w, id), pos, dist: distance(center, pos) })
            })
            .collect();
        things.sort_by(|a, b| a.dist.total_cmp(&b.dist).then(a.id.cmp(&b.id)));
        Scene { player, center: Some(center), tick, things }
    }

    /// The player's own entry.
    pub fn me(&self) -> Option<&Thing> {
        self.things.iter().find(|t| t.id == self.player)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use luprex_engine::{Model, SourceFile};

    /// A small world: players, two trees, a rock without a glyph.
    pub(crate) const SCRIPT: &str = r#"
        local player = maketangible("player")
        player.glyph = "@"
        function player:say(text) print("you: " .. text) end
        permit_invoke(player, "say")
        local tree = maketangible("tree")
        tree.glyph = "T"
        function tree:chop() print("chop") end
        permit_invoke(tree, "chop")
        function tree:secret() end
        maketangible("rock")
    "#;

    /// A master World of [`SCRIPT`] with player `ann` at the origin, trees
    /// at (3, 0) and (-2, 1), a rock at (0, 2) and a far tree at (50, 0).
    pub(crate) fn world() -> (World, u64) {
        let mut w = World::new(Model::Master).unwrap();
        w.load_sources(&[SourceFile::new("demo.lua", SCRIPT)]).unwrap();
        assert_eq!(w.take_reports(), []);
        let ann = w.admit("ann").unwrap().id;
        for (class, x, y) in [("tree", 3.0, 0.0), ("tree", -2.0, 1.0), ("rock", 0.0, 2.0)] {
            w.new_tangible(class, [x, y, 0.0]).unwrap();
        }
        w.new_tangible("tree", [50.0, 0.0, 0.0]).unwrap();
        (w, ann)
    }

    #[test]
    fn classes_glyphs_and_permissions() {
        let (mut w, ann) = world();
        let ids = w.tangible_ids();
        let classes: Vec<String> = ids.iter().map(|&id| class_name(&mut w, id).unwrap()).collect();
        assert_eq!(classes, ["player", "tree", "tree", "rock", "tree"]);
        let glyphs: String = ids.iter().map(|&id| glyph(&mut w, id)).collect();
        assert_eq!(glyphs, "@TTrT");
        assert!(permits(&mut w, ann, "say"));
        assert!(!permits(&mut w, ann, "chop"));
        assert!(permits(&mut w, ids[1], "chop"));
        assert!(!permits(&mut w, ids[1], "secret"), "a function, but not permitted");
        assert!(!permits(&mut w, 999, "chop"));
    }

    #[test]
    fn targets_are_the_player_or_the_nearest_permitting_tangible() {
        let (mut w, ann) = world();
        let ids = w.tangible_ids();
        assert_eq!(resolve_target(&mut w, ann, "say"), Some(ann));
        assert_eq!(resolve_target(&mut w, ann, "chop"), Some(ids[2]), "(-2,1) is nearer");
        assert_eq!(resolve_target(&mut w, ann, "secret"), None);
        w.move_to(ann, [45.0, 0.0, 0.0], 0).unwrap();
        assert_eq!(resolve_target(&mut w, ann, "chop"), Some(ids[4]));
        w.move_to(ann, [20.0, 0.0, 0.0], 0).unwrap();
        assert_eq!(resolve_target(&mut w, ann, "chop"), None, "nothing within reach");
    }

    #[test]
    fn a_scene_does_not_change_the_world() {
        let (mut w, ann) = world();
        let before = w.state_hash();
        let scene = Scene::capture(&mut w, ann, 10.0);
        resolve_target(&mut w, ann, "chop");
        assert_eq!(w.state_hash(), before);
        let order: Vec<(&str, char)> =
            scene.things.iter().map(|t| (t.class.as_str(), t.glyph)).collect();
        assert_eq!(order, [("player", '@'), ("rock", 'r'), ("tree", 'T'), ("tree", 'T')]);
        assert_eq!(scene.center, Some([0.0; 3]));
        assert_eq!(scene.me().map(|t| t.id), Some(ann));
        assert_eq!(Scene::capture(&mut w, 999, 10.0).center, None);
    }
}
