-- Called by the Rust test (engine/tests/worlds.rs).
makeclass("check")

-- The environment holds exactly the classes, in class order.
function check.order()
  local names = {}
  for k, v in pairs(_G) do
    assert(type(v) == "table" and v.__class == k and v.__index == v, k)
    names[#names + 1] = k
  end
  return table.concat(names, ",")
end

-- Remember the class tables, to check that a rebuild keeps them.
function check.remember()
  local t = global("remembered")
  t.furnace, t.torch, t.action = furnace, torch, torch.action
  t.instance = furnace.new("wood")
end

function check.same()
  local t = global("remembered")
  assert(t.furnace == furnace and t.torch == torch, "rebuild kept the class tables")
  assert(t.instance:burn() == "burning wood", "an instance made before the rebuild still works")
  assert(furnace.cool() == "cool")
  assert(torch.action.light() == "lit")
  return true
end
