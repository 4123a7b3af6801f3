import Foundation

/// Makes the ``ActionContext/requestID`` of every request: a version-4-format UUID made of a
/// random per-process prefix and a counter.
///
/// `UUID()` on Linux opens and reads `/dev/urandom` on every call, which cost more than the
/// rest of the pipeline put together. Request IDs need to be unique, not unguessable: a random
/// 64-bit prefix drawn once per process keeps them apart across processes and devices, and the
/// counter keeps them apart within one.
enum RequestIdentifiers {
    private static let prefix: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = {
        let random = UUID().uuid
        // Version 4 in the high nibble of byte 6.
        return (random.0, random.1, random.2, random.3, random.4, random.5, (random.6 & 0x0F) | 0x40, random.7)
    }()

    private static let counter = LockedState<UInt64>(0)

    /// The next request ID, and the next ``ActionContext/sequenceNumber`` of `module`: both
    /// counted under the one lock every request takes anyway, so the module's count costs no
    /// lock or atomic of its own.
    static func next(in module: ModuleRequestCount) -> (id: UUID, sequenceNumber: Int) {
        let (count, sequenceNumber) = counter.withLock { value -> (UInt64, Int) in
            value &+= 1
            return (value, module.increment())
        }
        return (uuid(count), sequenceNumber)
    }

    private static func uuid(_ count: UInt64) -> UUID {
        let p = prefix
        return UUID(
            uuid: (
                p.0, p.1, p.2, p.3, p.4, p.5, p.6, p.7,
                // RFC 4122 variant (10xx) in the high bits of byte 8; the counter fills the rest.
                UInt8(truncatingIfNeeded: count >> 56) & 0x3F | 0x80, UInt8(truncatingIfNeeded: count >> 48),
                UInt8(truncatingIfNeeded: count >> 40), UInt8(truncatingIfNeeded: count >> 32),
                UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16),
                UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count)
            ))
    }
}

/// How many requests a module has started: the ``ActionContext/sequenceNumber`` of its next
/// request, less one.
///
/// `@unchecked Sendable` is safe: `count` is only read and written by ``increment()``, which
/// only ``RequestIdentifiers/next(in:)`` calls, inside its counter's lock.
final class ModuleRequestCount: @unchecked Sendable {
    private var count = 0

    /// Counts one more request and returns its number, from 1 (wrapping after `Int.max`).
    /// Call only inside ``RequestIdentifiers``' lock.
    fileprivate func increment() -> Int {
        count = count == Int.max ? 1 : count + 1
        return count
    }
}
