do
  local x <close> = setmetatable({}, {__close = function(_, e) print("closing with", e) end})
  print("inside block")
  error("fail inside block")
end
