local p = {x = 0, y = 0}
for i = 1, 10000000 do p.x = p.x + 1; p.y = p.y + p.x end
print(p.x, p.y)
