-- alpha is first made here (after zeta, made in zeta.lua); this file also
-- extends zeta, which does not move zeta's place in the class order.
makeclass("alpha")
function alpha.init()
  local log = default(global("start"), "order", {})
  log[#log + 1] = "alpha"
  print("init alpha")
end

makeclass("zeta")
function zeta.extra() end

makeclass("faulty")
function faulty.init()
  error("faulty init")
end
