-- maketangible is makeclass plus the 'action' subtable.
local torch = maketangible("torch")
assert(torch.__class == "torch" and torch.__index == torch)
assert(type(torch.action) == "table")
local action = torch.action
function torch.action.light() return "lit" end
function torch.douse() end

-- Again: the class, its methods and its action table are kept.
assert(maketangible("torch") == torch)
assert(torch.action == action and torch.action.light() == "lit")
assert(torch.douse)

-- maketangible on an existing plain class adds 'action' and keeps methods.
local lamp = makeclass("lamp")
function lamp.shine() return "shine" end
assert(lamp.action == nil)
assert(maketangible("lamp") == lamp and type(lamp.action) == "table")
assert(lamp.shine() == "shine")
