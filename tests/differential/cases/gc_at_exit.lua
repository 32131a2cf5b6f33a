-- finalizers of objects still alive run when the state is closed at exit
local a = setmetatable({}, {__gc = function() print("finalizer A at exit") end})
local b = setmetatable({}, {__gc = function() print("finalizer B at exit") end})
print("main chunk done")
