makeclass("zeta")
function zeta.init(self)
  assert(self == zeta, "init receives its class")
  local log = default(global("start"), "order", {})
  log[#log + 1] = "zeta"
  print("init zeta")
end

makeclass("plain") -- no init
