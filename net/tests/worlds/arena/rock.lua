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
