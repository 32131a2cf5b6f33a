-- The file's top level runs in every model, so it does not touch global():
-- the globals database exists only on the master. Functions do.
makeclass("bank")

function bank.deposit(who, n)
  local accounts = global("accounts")
  accounts[who] = (accounts[who] or 0) + n
  return accounts[who]
end

function bank.publish_rate(r) global.set("rate", r) end
function bank.rate() return global.get("rate") end
