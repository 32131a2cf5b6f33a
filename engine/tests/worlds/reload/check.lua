makeclass("check")

function check.before()
  assert(furnace.heat() == "version 1")
  local store = global("store")
  assert(store.loads == 1)
  store.items[#store.items + 1] = "sword"
  store.furnace = furnace
  assert(extra.here())
  return "ok"
end

function check.after()
  assert(furnace.heat() == "version 2", "the edited method is the new one")
  assert(furnace.cool() == "cooled", "a method added by the edit")
  local store = global("store")
  assert(store.loads == 2, "store.lua ran again (from the source database)")
  assert(#store.items == 1 and store.items[1] == "sword", "global data survived")
  assert(store.furnace == furnace, "the class table is the same table")
  assert(stable.answer() == 42)
  assert(extra == nil, "a class no file makes any more leaves the environment")
  assert(late.added(), "a file added to control.lst is loaded")
  return "ok"
end
