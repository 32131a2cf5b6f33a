//! Players: admission, `onjoin` / `onleave`, and the built-in walk.
//!
//! A *player* is a tangible of the class `player` (a class the scripts
//! make with `maketangible("player")`) that has an IdPlayerPool
//! (`tangible.rs`), so that the IDs its commands allocate are the same
//! when a client predicts them and when the master runs them.
//!
//! **Admission** ([`World::admit`], master only). Players are known by
//! name: registry key `players` maps a player's name (a string) to the ID
//! of its tangible. Admitting a name the table holds, whose tangible still
//! exists, is a *return*: the same tangible, with its script data, its
//! position and its pool. Otherwise the World creates a tangible of class
//! `player` at the origin, makes it a player and records it. Either way
//! the player's class's `onjoin(self, name, new)` method, if it has one,
//! runs as a thread of the player tangible serving that player (its
//! `actor()` is the player, its prints go to the player, its IDs come
//! from the player's pool); `new` tells a first arrival from a return.
//! A script places a new player with `moveto(self, x, y, z, 0)` (a
//! teleport) in `onjoin`. [`World::depart`] runs `onleave(self)` the same
//! way; the tangible stays (the world is persistent: a script that wants
//! departed players gone destroys them in `onleave`). The synchronous
//! models never admit: the player's tangible and pool reach them by
//! difference transmission.
//!
//! **Walking** needs no script code. The library function
//! `walk(t, x, y [, z])` (written in Lua, below, chunk `=walk`) moves any
//! tangible to a point at its speed: it halts `t` where it is now, then
//! queues one step to the point arriving after `ceil(distance / speed)`
//! ticks, where the speed is `t.walkspeed` (units per tick; read through
//! the class, default 1). Before moving it calls the hook
//! `t:onwalk(x, y, z)` if the tangible (or its class) has one: returning
//! `false` refuses the walk (nothing moves, `walk` returns `false`);
//! returning three numbers walks there instead; returning anything else
//! (`nil`, `true`) walks as asked. [`World::walk`] is the player's
//! built-in *walk command*: `walk(player, x, y, z)` as a command thread of
//! the player's own tangible (so it is predicted and acknowledged like any
//! command), with no `permit_invoke` needed.
//!
//! **Invariants.** The `players` table and the pools are VM state, so
//! snapshots, saves and the state hash cover them; a name maps to at most
//! one live player tangible; admission and the walk use no clock and no
//! randomness.

use crate::error::EngineError;
use crate::tangible::{self, AsTangible};
use crate::threads::Plain;
use crate::world::{Model, World};
use crate::{registry_get, registry_table};
use luprex_vm::raw::{Error, State, TableRef, Value};

/// Registry key of the players: name → tangible ID.
pub(crate) const PLAYERS: &str = "players";
/// The class of player tangibles.
pub const PLAYER_CLASS: &str = "player";
/// The longest player name, in bytes.
pub const MAX_NAME: usize = 64;

/// The built-in walk (see the module docs). Argument errors name `walk`.
const WALK: &str = r#"
local position, moveto, halt, getid = position, moveto, halt, getid
local type, error, tostring, sqrt, ceil = type, error, tostring, math.sqrt, math.ceil

local function coord(v, i)
  if type(v) ~= "number" then
    error("bad argument #" .. i .. " to 'walk' (number expected, got " ..
          (v == nil and "no value" or type(v)) .. ")", 3)
  elseif v ~= v or v == 1/0 or v == -1/0 then
    error("bad argument #" .. i .. " to 'walk' (coordinate is not finite)", 3)
  end
  return v
end

return function(t, x, y, z)
  local ok, id = pcall(getid, t)
  if not ok then
    error("bad argument #1 to 'walk' (" .. (type(t) == "table" and "tangible expected" or
          "tangible expected, got " .. (t == nil and "no value" or type(t))) .. ")", 2)
  end
  local hx, hy, hz = position(t)
  x, y = coord(x, 2), coord(y, 3)
  if z == nil then z = hz else z = coord(z, 4) end
  local hook = t.onwalk
  if hook ~= nil then
    local a, b, c = hook(t, x, y, z)
    if a == false then return false end
    if a ~= nil and a ~= true then
      x, y, z = coord(a, 2), coord(b, 3), coord(c, 4)
    end
  end
  local speed = t.walkspeed
  if speed == nil then speed = 1 end
  if type(speed) ~= "number" or not (speed > 0) or speed == 1/0 then
    error("walk: walkspeed of tangible " .. id .. " is not a positive number (" ..
          tostring(speed) .. ")", 2)
  end
  halt(t)
  hx, hy, hz = position(t)
  local dx, dy, dz = x - hx, y - hy, z - hz
  local dist = sqrt(dx * dx + dy * dy + dz * dz)
  if dist == 0 then return true end
  local ticks = ceil(dist / speed)
  if math.type(ticks) ~= "integer" or ticks > 1000000000 then
    error("walk: the destination is too far for the speed", 2)
  end
  moveto(t, x, y, z, ticks)
  return true
end
"#;

/// Creates the registry table `players` and the library function `walk`
/// (after `tangible::open`: it captures `position`, `moveto`, `halt`).
pub(crate) fn open(st: &mut State, lib: TableRef) -> Result<(), Error> {
    let players = st.new_table_sized(0, 4);
    let k = st.intern(PLAYERS.as_bytes());
    let reg = st.registry();
    st.raw_set_str(reg, k, Value::Table(players));
    let walk = st.exec(WALK.as_bytes(), b"=walk")?;
    let k = st.intern(b"walk");
    st.raw_set_str(lib, k, walk.first().copied().unwrap_or(Value::Nil));
    Ok(())
}

/// How a player arrived ([`World::admit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    /// The player's tangible.
    pub id: u64,
    /// Whether the tangible was made now (a first arrival) rather than
    /// found (a return).
    pub new: bool,
    /// The `onjoin` thread, if the class has an `onjoin` method.
    pub thread: Option<u64>,
}

impl World {
    /// Admits the player called `name` (master only; see the module
    /// docs): finds or makes its tangible of class `player`, then runs
    /// its `onjoin(self, name, new)` if there is one.
    ///
    /// Fails, changing nothing, if this is not the master, the name is
    /// empty, longer than [`MAX_NAME`] bytes or holds a control character,
    /// or the scripts define no tangible class `player`.
    pub fn admit(&mut self, name: &str) -> Result<Admission, EngineError> {
        self.record(|| crate::journal::Event::Admit { name: name.to_owned() });
        let refuse = |m: String| Self::lua_error(format!("admit '{name}': {m}"));
        if self.model != Model::Master {
            return Err(refuse("only the master admits players".into()));
        }
        if name.is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
            return Err(refuse(format!(
                "a player name is 1 to {MAX_NAME} bytes with no control characters"
            )));
        }
        let (id, new) = match self.player_id(name) {
            Some(id) => (id, false),
            None => (self.make_player_tangible(name).map_err(refuse)?, true),
        };
        let args = [Plain::Str(name.to_owned()), Plain::Bool(new)];
        let thread = self.player_hook(id, "onjoin", &args).map_err(refuse)?;
        Ok(Admission { id, new, thread })
    }

    /// Player `id` leaves: runs its `onleave(self)` if there is one (the
    /// tangible stays). Returns the thread, if any. Fails if `id` is not a
    /// live player.
    pub fn depart(&mut self, id: u64) -> Result<Option<u64>, EngineError> {
        self.record(|| crate::journal::Event::Depart { player: id });
        if tangible::host(&self.st).get(id).is_none_or(|t| t.pool.is_none()) {
            return Err(Self::lua_error(format!("depart: {id} is not a player")));
        }
        self.player_hook(id, "onleave", &[]).map_err(Self::lua_error)
    }

    /// The tangible of the player called `name`, if it was admitted and
    /// its tangible still exists.
    pub fn player_id(&mut self, name: &str) -> Option<u64> {
        let players = registry_table(&mut self.st, PLAYERS);
        let k = self.st.intern(name.as_bytes());
        let Value::Int(id) = self.st.table(players).get_str(k) else { return None };
        let id = id as u64;
        tangible::host(&self.st).get(id).is_some_and(|t| t.pool.is_some()).then_some(id)
    }

    /// Every admitted player whose tangible exists: (name, ID), in order
    /// of first admission.
    pub fn players(&mut self) -> Vec<(String, u64)> {
        let Value::Table(players) = registry_get(&mut self.st, PLAYERS) else { return Vec::new() };
        let host = tangible::host(&self.st);
        self.st
            .table(players)
            .iter()
            .filter_map(|(k, v)| match (k, v) {
                (Value::Str(s), Value::Int(id)) if host.get(id as u64).is_some() => {
                    Some((String::from_utf8_lossy(self.st.str_bytes(s)).into_owned(), id as u64))
                }
                _ => None,
            })
            .collect()
    }

    /// The built-in walk command of player `actor` (seed: players walk
    /// with no script code): `walk(player, x, y, z)` as a command thread
    /// of the player's own tangible (see the module docs for the
    /// `onwalk` hook and `walkspeed`). Returns the thread's ID. Refused,
    /// changing nothing, if `actor` is not a live player or a coordinate
    /// is not finite.
    pub fn walk(&mut self, actor: u64, to: [f64; 3]) -> Result<u64, EngineError> {
        self.record(|| crate::journal::Event::Walk { actor, to });
        let refuse = |m: String| Self::lua_error(format!("walk refused: {m}"));
        if tangible::host(&self.st).get(actor).is_none_or(|t| t.pool.is_none()) {
            return Err(refuse(format!("actor {actor} is not a player")));
        }
        if !to.iter().all(|c| c.is_finite()) {
            return Err(refuse("coordinate is not finite".into()));
        }
        let lib = crate::classes::library(&mut self.st);
        let k = self.st.intern(b"walk");
        let f = self.st.table(lib).get_str(k);
        let k = self.keys();
        let me = self.st.table(k.reg).get_int(actor as i64);
        let args = [me, Value::Float(to[0]), Value::Float(to[1]), Value::Float(to[2])];
        self.start_command(actor, actor, f, &args, false).map_err(refuse)
    }

    /// Makes the tangible of new player `name` (class `player`, at the
    /// origin, with an ID pool) and records it.
    fn make_player_tangible(&mut self, name: &str) -> Result<u64, String> {
        let k = self.keys();
        let class = Value::Str(self.st.intern(PLAYER_CLASS.as_bytes()));
        let Ok(class) = tangible::resolve_class(&self.st, &k, class) else {
            return Err("the scripts define no class 'player' (maketangible(\"player\"))".into());
        };
        let host = tangible::host_mut(&mut self.st);
        let prev = host.actor();
        host.set_actor_for_thread(None);
        let made = tangible::create(&mut self.st, &k, class, [0.0; 3]);
        tangible::host_mut(&mut self.st).set_actor_for_thread(prev);
        let (id, _) = made?;
        if let Err(e) = tangible::host_mut(&mut self.st).make_player(id) {
            tangible::destroy(&mut self.st, &k, id);
            return Err(e.to_string());
        }
        let players = registry_table(&mut self.st, PLAYERS);
        let key = Value::Str(self.st.intern(name.as_bytes()));
        self.st.try_table_set(Value::Table(players), key, Value::Int(id as i64)).map_err(|e| {
            let msg = e.message().to_owned();
            tangible::destroy(&mut self.st, &k, id);
            msg
        })?;
        Ok(id)
    }

    /// Runs method `hook` of player `id`'s class (if it is a function) as
    /// a command thread serving the player, with `args` after `self`.
    fn player_hook(&mut self, id: u64, hook: &str, args: &[Plain]) -> Result<Option<u64>, String> {
        let k = self.keys();
        let me = self.st.table(k.reg).get_int(id as i64);
        let AsTangible::Live(..) = tangible::as_tangible(&self.st, &k, me) else {
            return Err(format!("no tangible {id}"));
        };
        let kh = self.st.intern(hook.as_bytes());
        let Some(meta) = self.st.metatable(me) else { return Ok(None) };
        let Value::Table(class) = self.st.table(meta).get_str(k.index) else { return Ok(None) };
        let f = self.st.table(class).get_str(kh);
        if !f.is_function() {
            return Ok(None);
        }
        let mut vals = vec![me];
        for a in args {
            vals.push(a.to_value(&mut self.st, &k).unwrap_or(Value::Nil));
        }
        self.start_command(id, id, f, &vals, false).map(Some)
    }
}
