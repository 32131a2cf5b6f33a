local walker = maketangible("walker")
function walker:walk(x, y, z, ticks) moveto(self, x, y, z, ticks) end
