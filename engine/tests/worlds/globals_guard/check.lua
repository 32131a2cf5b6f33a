makeclass("check")

function check.env()
  local names = {}
  for k in pairs(_G) do names[#names + 1] = k end
  assert(partial.never == nil, "assign.lua stopped at its error")
  assert(victim.__class == "victim", "the overwritten class was put back")
  assert(stray == nil)
  return table.concat(names, ",")
end
