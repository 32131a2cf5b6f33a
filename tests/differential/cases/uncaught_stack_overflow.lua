local function recurse(n) return recurse(n + 1) + 1 end
print("recursing")
recurse(1)
