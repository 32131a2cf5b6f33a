-- Two tangible classes and a plain class.
local torch = maketangible("torch")
function torch:light() self.lit = true; return "lit " .. getid(self) end
function torch.action.douse(self) self.lit = false end

local lamp = maketangible("lamp")
function lamp:light() return "lamp " .. getid(self) end

makeclass("plain")
