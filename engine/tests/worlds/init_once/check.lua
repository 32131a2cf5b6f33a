makeclass("check")

function check.order()
  return table.concat(global("start").order, ",")
end
