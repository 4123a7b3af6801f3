import Foundation

/// A deterministic random number generator (SplitMix64): the same seed gives the same cases,
/// so a failure found by a property test can be replayed exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// The seed of this run: `NETWORK_MODULE_PROPERTY_SEED` if set, else a fresh one.
    static func runSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["NETWORK_MODULE_PROPERTY_SEED"], let seed = UInt64(text) {
            return seed
        }
        return UInt64.random(in: 1...UInt64.max)
    }

    /// How many cases a property test runs: `NETWORK_MODULE_PROPERTY_CASES`, else `defaultCount`.
    static func caseCount(default defaultCount: Int) -> Int {
        ProcessInfo.processInfo.environment["NETWORK_MODULE_PROPERTY_CASES"].flatMap(Int.init) ?? defaultCount
    }
}

extension SeededGenerator {
    /// A random string of `0...maxLength` characters drawn from `alphabet`.
    mutating func string(from alphabet: [Character], maxLength: Int, minLength: Int = 0) -> String {
        let length = Int.random(in: minLength...maxLength, using: &self)
        return String((0..<length).map { _ in alphabet.randomElement(using: &self) ?? "x" })
    }
}

/// Character classes the generators mix.
enum Alphabet {
    static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let unreserved = Array("-._~")
    static let subDelimiters = Array("!$&'()*+,;=:@")
    static let reserved = Array("/?#[]%\"<>\\^`{|} ")
    static let controls: [Character] = ["\u{0}", "\u{1}", "\t", "\n", "\r", "\r\n", "\u{7F}", "\u{1B}"]
    static let nonASCII = Array("éüßøåçñ日本語中文русскийعربي🚀✨👩‍👩‍👧")

    /// Everything a caller might put in a query name or value.
    static let anything = letters + unreserved + subDelimiters + reserved + controls + nonASCII
    /// Path text that carries no URL syntax (`?`, `#` and `%` mean query, fragment and escape).
    static let pathSegment = letters + unreserved + subDelimiters + Array(" \"<>\\^`{|}[]") + nonASCII
    /// Header-name characters: mostly a valid token, sometimes not.
    static let headerName = letters + Array("-_!#$&'*+.^`|~") + Array(" :()\"/") + controls + Array("é")
    /// Header-value characters, including the ones that must be rejected.
    static let headerValue = letters + unreserved + subDelimiters + Array(" \"/") + controls + nonASCII
}
