-- rawset bypasses the guard; the class rebuild finds and removes it.
makeclass("victim")
rawset(_G, "stray", 5)
victim = "overwritten" -- a raw write over an existing class name
