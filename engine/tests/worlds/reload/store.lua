-- Reloadable initialisation: the table from global() survives reloads,
-- and default() sets a field only the first time.
local store = global("store")
local items = default(store, "items", {})
store.loads = (store.loads or 0) + 1
assert(store.items == items)
