/// A store bounded in entries and in total cost that removes the least recently used entry
/// first: the memory of ``CachedSession``.
///
/// Entries sit in an array linked from newest to oldest by index, so a look-up, an insert
/// and an eviction each take constant time and allocate nothing once the array has grown.
struct LRUStore<Key: Hashable, Value> {
    private struct Node {
        /// `nil` while the slot is free.
        var key: Key?
        /// `nil` while the slot is free, so a removed value is released at once.
        var value: Value?
        var cost: Int
        /// The next newer and older entries; -1 for none.
        var newer: Int
        var older: Int
    }

    /// The largest number of entries.
    let maximumCount: Int
    /// The largest total cost of the entries.
    let maximumCost: Int
    /// The total cost of the entries.
    private(set) var totalCost = 0

    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var slotByKey: [Key: Int] = [:]
    private var newest = -1
    private var oldest = -1

    init(maximumCount: Int, maximumCost: Int) {
        self.maximumCount = maximumCount
        self.maximumCost = maximumCost
    }

    /// The number of entries.
    var count: Int { slotByKey.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(forKey key: Key) -> Value? {
        guard let slot = slotByKey[key] else { return nil }
        if slot != newest {
            unlink(slot)
            linkAsNewest(slot)
        }
        return nodes[slot].value
    }

    /// Stores `value` as the most recently used, replacing any value for `key`, after
    /// removing the least recently used entries the bounds require. A value that costs more
    /// than ``maximumCost`` is not stored (and the old value for `key` is gone).
    ///
    /// - Returns: how many other entries were removed to make room.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int) -> Int {
        removeValue(forKey: key)
        guard cost <= maximumCost, maximumCount > 0 else { return 0 }
        var evicted = 0
        while oldest >= 0, count >= maximumCount || totalCost + cost > maximumCost {
            remove(slot: oldest)
            evicted += 1
        }
        let node = Node(key: key, value: value, cost: cost, newer: -1, older: -1)
        let slot: Int
        if let free = freeSlots.popLast() {
            nodes[free] = node
            slot = free
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slotByKey[key] = slot
        totalCost += cost
        linkAsNewest(slot)
        return evicted
    }

    /// Removes the value for `key` and returns it.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slotByKey[key] else { return nil }
        let value = nodes[slot].value
        remove(slot: slot)
        return value
    }

    /// Removes every entry whose key satisfies `predicate`.
    mutating func removeAll(where predicate: (Key) -> Bool) {
        for (key, slot) in slotByKey where predicate(key) {  // iterates a copy: removing is safe
            remove(slot: slot)
        }
    }

    /// Removes every entry.
    mutating func removeAll() {
        self = LRUStore(maximumCount: maximumCount, maximumCost: maximumCost)
    }

    private mutating func remove(slot: Int) {
        unlink(slot)
        if let key = nodes[slot].key { slotByKey[key] = nil }
        totalCost -= nodes[slot].cost
        nodes[slot] = Node(key: nil, value: nil, cost: 0, newer: -1, older: -1)
        freeSlots.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer
        let older = nodes[slot].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot } else { oldest = slot }
        newest = slot
    }
}
