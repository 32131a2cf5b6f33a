makeclass("extra")
function extra.here() return true end
