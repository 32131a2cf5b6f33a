local Account = {}
Account.__index = Account
local count = 0
function Account.new(owner, balance)
  count = count + 1
  return setmetatable({owner = owner, balance = balance or 0, id = count, history = {}}, Account)
end
function Account:deposit(v)
  if v <= 0 then error("deposit must be positive", 2) end
  self.balance = self.balance + v
  self.history[#self.history + 1] = "+" .. v
end
function Account:withdraw(v)
  if v > self.balance then error({code = "NSF", need = v - self.balance}) end
  self.balance = self.balance - v
  self.history[#self.history + 1] = "-" .. v
end
function Account:summary()
  local h = ""
  for i, e in ipairs(self.history) do h = h .. (i > 1 and "," or "") .. e end
  return self.owner .. "#" .. self.id .. " balance=" .. self.balance .. " [" .. h .. "]"
end
local a = Account.new("ann", 100)
local b = Account.new("bob")
a:deposit(50)
a:withdraw(30)
b:deposit(10)
print(a:summary())
print(b:summary())
print(pcall(a.deposit, a, -5))
local ok, e = pcall(b.withdraw, b, 100)
print(ok, type(e), e.code, e.need)
print(getmetatable(a) == Account, a.deposit == b.deposit, rawget(a, "deposit"))
