import Foundation
import Testing

@testable import NetworkModuleCore

@Suite("Content-Range")
struct ContentRangeTests {
    @Test("when the range is complete, should read its start, end and length")
    func complete() {
        let range = ContentRange("bytes 100-199/200")
        #expect(range?.start == 100)
        #expect(range?.end == 199)
        #expect(range?.completeLength == 200)
    }

    @Test("when the length is unknown, should read it as nil")
    func unknownLength() {
        #expect(ContentRange("bytes 0-9/*")?.completeLength == nil)
        #expect(ContentRange("bytes 0-9/*")?.start == 0)
    }

    @Test(
        "when the value is malformed, should read nothing",
        arguments: [
            "", "bytes", "bytes 1-2", "items 1-2/3", "bytes 5-4/10", "bytes 1-10/10", "bytes -1-2/3",
            "bytes +1-2/3", "bytes 1-2/-3", "bytes 1 -2/3", "bytes 99999999999999999999-1/2", "bytes */10",
        ])
    func malformed(value: String) {
        #expect(ContentRange(value) == nil)
    }
}
