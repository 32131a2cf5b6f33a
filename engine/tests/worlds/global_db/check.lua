makeclass("check")

function check.master()
  assert(global("accounts") == global("accounts"), "the same table each time")
  assert(next(global("fresh")) == nil, "created empty on first use")
  assert(bank.deposit("ann", 5) == 5 and bank.deposit("ann", 2) == 7)
  assert(bank.rate() == nil)
  bank.publish_rate(3)
  assert(bank.rate() == 3 and global.get("rate") == 3)
  global.set("motd", {text = "hello"})
  assert(global.get("motd").text == "hello")
  local ok, err = pcall(function() return global(42) end)
  assert(not ok and err:find("bad argument #1 to 'global' %(string expected, got number%)"), err)
  ok, err = pcall(function() return global.get() end)
  assert(not ok and err:find("bad argument #1 to 'get' %(string expected, got no value%)"), err)
  return "ok"
end

function check.sync()
  local ok, err = pcall(bank.deposit, "ann", 5)
  assert(not ok, "using global data must fail in a synchronous model")
  assert(err:find("^bank.lua:7: global%('accounts'%): global data exists only on the master"), err)
  -- global() itself gives a placeholder that fails on every use.
  local p = global("accounts")
  assert(getmetatable(p) == "global data (master only)" and rawget(p, "ann") == nil)
  for _, use in ipairs{
    function() return p.x end, function() p.x = 1 end, function() return #p end,
    function() for _ in pairs(p) do end end, function() return p() end,
  } do
    ok, err = pcall(use)
    assert(not ok and err:find("global%('accounts'%): global data exists only on the master"), err)
  end
  assert(default(p, "next_id", 1) == nil and rawget(p, "next_id") == nil)
  assert(bank.rate() == nil, "global.get works (nothing published here)")
  ok, err = pcall(bank.publish_rate, 3)
  assert(not ok and err:find("^bank.lua:11: global.set%('rate'%): published globals are set only on the master"), err)
  return "ok"
end
