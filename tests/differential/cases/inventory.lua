local items = {
  {name = "widget", qty = 10, price = 2.5},
  {name = "gadget", qty = 0, price = 10},
  {name = "doohickey", qty = 3, price = 7.25},
  {name = "gizmo", qty = 12, price = 1},
}
local function total(list)
  local t = 0
  for _, it in ipairs(list) do t = t + it.qty * it.price end
  return t
end
local function where(list, pred)
  local r = {}
  for _, it in ipairs(list) do if pred(it) then r[#r + 1] = it end end
  return r
end
local instock = where(items, function(it) return it.qty > 0 end)
print(#instock, total(items), total(instock))
for i = 2, #items do
  local v = items[i]
  local j = i - 1
  while j >= 1 and items[j].qty * items[j].price < v.qty * v.price do items[j + 1] = items[j] j = j - 1 end
  items[j + 1] = v
end
for _, it in ipairs(items) do print(it.name, it.qty, it.price, it.qty * it.price) end
