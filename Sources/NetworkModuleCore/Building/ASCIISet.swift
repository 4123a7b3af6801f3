/// A set of ASCII bytes, as two bit masks: testing a byte is a shift and a mask. Request
/// building and the header check test every byte of every URL and header field against one.
struct ASCIISet: Sendable {
    /// Bit `b` is set when byte `b` (below 64) is in the set.
    private let below64: UInt64
    /// Bit `b - 64` is set when byte `b` (64 to 127) is in the set.
    private let from64: UInt64

    /// The set of the ASCII characters of `characters`; anything else in it is ignored.
    init(_ characters: String) {
        var below64: UInt64 = 0
        var from64: UInt64 = 0
        for byte in characters.utf8 where byte < 128 {
            if byte < 64 {
                below64 |= 1 &<< UInt64(byte)
            } else {
                from64 |= 1 &<< UInt64(byte &- 64)
            }
        }
        self.below64 = below64
        self.from64 = from64
    }

    private init(below64: UInt64, from64: UInt64) {
        self.below64 = below64
        self.from64 = from64
    }

    /// The bytes of this set and of `other`.
    func union(_ other: ASCIISet) -> ASCIISet {
        ASCIISet(below64: below64 | other.below64, from64: from64 | other.from64)
    }

    /// Whether `byte` is in the set. Bytes from 128 up never are.
    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return below64 & (1 &<< UInt64(byte)) != 0 }
        if byte < 128 { return from64 & (1 &<< UInt64(byte &- 64)) != 0 }
        return false
    }

    /// Whether every UTF-8 byte of `text` is in the set, read straight from the string's
    /// storage where it has one (native and small strings do).
    func containsAll(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(containsAll) ?? containsAll(text.utf8)
    }

    /// Whether every UTF-8 byte of `text` is in the set. Through `withUTF8`, which copies only
    /// a string without contiguous UTF-8 of its own: a substring's UTF-8 view has no fast way
    /// to its storage.
    func containsAll(_ text: Substring) -> Bool {
        var text = text
        return text.withUTF8(containsAll)
    }

    private func containsAll(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes where !contains(byte) { return false }
        return true
    }

    /// ASCII capital letters.
    static let uppercaseLetters = ASCIISet("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    /// ASCII letters.
    static let letters = uppercaseLetters.union(ASCIISet("abcdefghijklmnopqrstuvwxyz"))
    /// ASCII letters and digits.
    static let alphanumerics = letters.union(ASCIISet("0123456789"))
}
