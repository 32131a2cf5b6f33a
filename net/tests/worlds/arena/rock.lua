local rock = maketangible("rock")

function rock.init()
  for i = 0, 9 do
    newtangible("rock", (i % 5) * 8 - 16, (i // 5) * 8 - 4, 0)
  end
end

function rock:push(dx, dy)
  local x, y, z = position(self)
  moveto(self, x + dx, y + dy, z, 3)
end
permit_invoke(rock, "push")

function rock:vanish()
  destroy(self)
end
permit_invoke(rock, "vanish")

-- script data only: the rock keeps a count of chips
function rock:chip()
  self.chips = (self.chips or 0) + 1
  self.marks = self.marks or {}
  self.marks[#self.marks + 1] = { n = self.chips }
end
permit_invoke(rock, "chip")
