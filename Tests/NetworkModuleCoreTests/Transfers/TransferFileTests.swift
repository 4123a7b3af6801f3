import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

@Suite("Transfer file")
final class TransferFileTests {
    /// A folder of this test's own, removed when the test ends.
    private let folder: URL

    init() throws {
        folder = try makeTemporaryFolder()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("when the file is missing, should create it and write the chunks in order")
    func createsAndAppends() throws {
        let url = folder.appendingPathComponent("body")
        let file = try TransferFile(url: url, keeping: 0)
        try file.write(Data("hello ".utf8))
        try file.write(Data("world".utf8))
        #expect(file.length == 11)
        #expect(try Data(contentsOf: url) == Data("hello world".utf8))
    }

    @Test("when replacing, should cut off what the file held")
    func replaces() throws {
        let url = folder.appendingPathComponent("body")
        try Data("old contents".utf8).write(to: url)
        let file = try TransferFile(url: url, keeping: 0)
        try file.write(Data("new".utf8))
        #expect(try Data(contentsOf: url) == Data("new".utf8))
    }

    @Test("when resuming, should keep the first bytes, cut the rest, and append")
    func resumes() throws {
        let url = folder.appendingPathComponent("body")
        try Data("0123456789".utf8).write(to: url)
        let file = try TransferFile(url: url, keeping: 4)
        try file.write(Data("abc".utf8))
        #expect(file.length == 7)
        #expect(try Data(contentsOf: url) == Data("0123abc".utf8))
    }

    @Test("when the file holds fewer bytes than a resumed body continues, should fail with cannotWriteToFile")
    func resumeBeyondEnd() throws {
        let url = folder.appendingPathComponent("body")
        try Data("01".utf8).write(to: url)
        #expect(throws: URLError.self) { try TransferFile(url: url, keeping: 5) }
        do {
            _ = try TransferFile(url: url, keeping: 5)
        } catch {
            #expect(error.code == .cannotWriteToFile)
            #expect(error.localizedDescription.contains("holds 2"))
        }
    }

    @Test("when the folder does not exist, should fail with cannotCreateFile naming the path and the reason")
    func missingFolder() throws {
        let url = folder.appendingPathComponent("missing/body")
        do {
            _ = try TransferFile(url: url, keeping: 0)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .cannotCreateFile)
            let message = error.localizedDescription
            #expect(message.contains(url.path))
            #expect(message.contains("No such file or directory"))
        }
    }

    #if os(Linux)
        @Test("when the disk is full, should fail with cannotWriteToFile saying so")
        func fullDisk() throws {
            // /dev/full accepts an open and refuses every write with ENOSPC.
            let url = URL(fileURLWithPath: "/dev/full")
            let file = try TransferFile(url: url, keeping: 0)
            do {
                try file.write(Data(repeating: 1, count: 4096))
                Issue.record("expected an error")
            } catch {
                #expect(error.code == .cannotWriteToFile)
                #expect(error.localizedDescription.contains("No space left on device"))
            }
        }
    #endif
}
