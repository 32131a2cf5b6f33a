local Bank = {}
Bank.__index = Bank
function Bank.new() return setmetatable({accounts = {}, log = {}}, Bank) end
function Bank:open(id, amount)
  if self.accounts[id] then error("account exists: " .. id, 2) end
  self.accounts[id] = amount
  self.log[#self.log + 1] = "open " .. id .. " " .. amount
end
function Bank:transfer(from, to, amount)
  local a, b = self.accounts[from], self.accounts[to]
  if not a or not b then error({reason = "no such account"}) end
  if a < amount then error({reason = "insufficient", short = amount - a}) end
  self.accounts[from], self.accounts[to] = a - amount, b + amount
  self.log[#self.log + 1] = "transfer " .. from .. "->" .. to .. " " .. amount
end
local bank = Bank.new()
bank:open("alice", 100)
bank:open("bob", 50)
print(pcall(bank.open, bank, "alice", 1))
bank:transfer("alice", "bob", 30)
local ok, e = pcall(bank.transfer, bank, "bob", "alice", 500)
print(ok, e.reason, e.short)
ok, e = pcall(bank.transfer, bank, "bob", "carol", 5)
print(ok, e.reason)
print(bank.accounts.alice, bank.accounts.bob)
for i, l in ipairs(bank.log) do print(i, l) end
