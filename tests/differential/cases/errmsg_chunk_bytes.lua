-- An error's position names the chunk with the bytes its name holds, valid
-- UTF-8 or not, in every kind of error: the VM's own, error(), assert,
-- a library's argument error. Non-ASCII bytes are printed as <hex>.
local function show(s)
  return (tostring(s):gsub("[\128-\255]", function(c)
    return string.format("<%02x>", c:byte())
  end))
end
local names = {
  "=\255\254ab",
  "@" .. string.rep("d\200", 40) .. ".lua",
  "@caf\195\169.lua",
  "return \200\201 x",
  "=" .. string.rep("\226\130\172", 30),
}
local bodies = {
  "return x.y",
  "local t = nil; return t.z",
  "error('m')",
  "error('lvl2', 2)",
  "assert(false, 'asserted')",
  "return ('x'):rep(1, 2, 3, {})",
  "return #nil",
  "return 1 + {}",
}
for _, name in ipairs(names) do
  for _, body in ipairs(bodies) do
    local f = assert(load(body, name))
    print(pcall(function() local ok, e = pcall(f); return show(e) end))
  end
end
