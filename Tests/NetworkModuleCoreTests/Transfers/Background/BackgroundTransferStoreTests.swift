import Foundation
import NetworkModuleTestSupport
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The files of a background session's ledger: what is written survives a new process, an older
/// snapshot never overwrites a newer one, and a damaged file costs its contents, never a crash.
@Suite("BackgroundTransferStore")
struct BackgroundTransferStoreTests {
    typealias Ledger = BackgroundTransferLedger

    func record(_ id: String, phase: BackgroundTransferRecord.Phase = .sent) -> BackgroundTransferRecord {
        BackgroundTransferRecord(
            id: id, token: "token-\(id)", kind: .upload(file: URL(fileURLWithPath: "/tmp/\(id).mov")),
            acceptableStatusCodes: [200...299], url: URL(string: "https://api.example.com/uploads"), method: "PUT",
            requestID: UUID(), sequenceNumber: 3, startDate: Date(timeIntervalSince1970: 10),
            sentDate: Date(timeIntervalSince1970: 11), phase: phase)
    }

    @Test("when a ledger is saved, should read back the same ledger in a new store on the folder")
    func roundTrip() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let persisted = Ledger.Persisted(
            transfers: [record("a"), record("b", phase: .finished(.lost))], resumeData: ["b"])

        let saved = BackgroundTransferStore(directory: folder).save(Ledger.Snapshot(number: 1, persisted: persisted))

        #expect(saved)
        #expect(BackgroundTransferStore(directory: folder).load() == .loaded(persisted))
    }

    @Test("when an older snapshot comes after a newer one, should keep the newer on disk")
    func olderSnapshot() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        let newer = Ledger.Persisted(transfers: [record("new")])
        store.save(Ledger.Snapshot(number: 2, persisted: newer))

        store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(transfers: [record("old")])))

        #expect(store.load() == .loaded(newer))
    }

    @Test(
        "when a newer snapshot could not be written, should not write an older one after it, and say whether a report may go"
    )
    func olderAfterFailedNewer() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let failing = LockedState(true)
        let store = BackgroundTransferStore(
            directory: folder,
            write: { data, url in !failing.withLock { $0 } && BackgroundTransferStore.write(data, to: url) })
        // Snapshot 1 names "b" as sent; snapshot 2, the report of "b", leaves it out and fails.
        var report = Ledger.Step()
        report.snapshot = Ledger.Snapshot(number: 2, persisted: Ledger.Persisted())
        let mayReport = store.applyReport(report, of: "b")
        failing.withLock { $0 = false }

        let olderSaved = store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(transfers: [record("b")])))

        #expect(mayReport, "no ledger on disk names b, and none that does may be written any more")
        #expect(!olderSaved)
        #expect(store.load() == .none)
    }

    @Test("when a report's save fails and the ledger on disk names the transfer, should say the app may not be told")
    func reportNotSavedWhileNamed() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let failing = LockedState(false)
        let store = BackgroundTransferStore(
            directory: folder,
            write: { data, url in !failing.withLock { $0 } && BackgroundTransferStore.write(data, to: url) })
        store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(transfers: [record("b")])))
        failing.withLock { $0 = true }
        var report = Ledger.Step()
        report.snapshot = Ledger.Snapshot(number: 2, persisted: Ledger.Persisted())

        #expect(!store.applyReport(report, of: "b"))
    }

    @Test("when there is no ledger yet, should load an empty one, creating nothing")
    func missing() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder.appendingPathComponent("session"))

        let loaded = store.load()

        #expect(loaded == .none)
        #expect(fileNames(in: folder).isEmpty)
    }

    @Test("when the ledger cannot be decoded, or is of another version, should move it aside and say it was damaged")
    func unreadable() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        let ledger = folder.appendingPathComponent("transfers.json")
        try Data("{\"version\": 1, \"transfers\": [{\"id\": 3}]".utf8).write(to: ledger)

        let damaged = store.load()
        try Data("{\"version\": 2, \"transfers\": [], \"resumeData\": []}".utf8).write(to: ledger)
        let future = store.load()

        #expect(damaged == .damaged && future == .damaged)
        #expect(fileNames(in: folder) == ["transfers.json.unreadable"])
    }

    @Test("when the ledger is there but cannot be read, should say it is blocked and never write over it")
    func cannotRead() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        let ledger = folder.appendingPathComponent("transfers.json")
        try FileManager.default.createDirectory(at: ledger, withIntermediateDirectories: false)

        let loaded = store.load()
        let saved = store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(transfers: [record("a")])))

        #expect(loaded == .blocked)
        #expect(!saved)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: ledger.path, isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test("when a saved ledger holds an inverted range of codes, should refuse it rather than crash")
    func invertedRange() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(transfers: [record("a")])))
        let url = folder.appendingPathComponent("transfers.json")
        let text = try #require(String(data: Data(contentsOf: url), encoding: .utf8))
        try Data(text.replacingOccurrences(of: "[[200,299]]", with: "[[299,200]]").utf8).write(to: url)

        let loaded = store.load()

        #expect(text.contains("[[200,299]]"))
        #expect(loaded == .damaged)
    }

    @Test("when resume data is written for an ID, should read it back, then remove it; any ID is a file name")
    func resumeData() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        let id = "../videos/intro 7.mp4"
        _ = store.load()
        var write = Ledger.Step()
        write.resumeDataToWrite = [(id, Data([1, 2, 3]))]
        write.snapshot = Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(resumeData: [id]))
        var remove = Ledger.Step()
        remove.resumeDataToRemove = [id]
        remove.snapshot = Ledger.Snapshot(number: 2, persisted: Ledger.Persisted())

        let written = store.apply(write)
        let read = store.resumeData(for: id)
        store.apply(remove)

        #expect(written && read == Data([1, 2, 3]))
        #expect(store.resumeData(for: id) == nil)
        #expect(store.resumeDataURL(for: id).deletingLastPathComponent().path == folder.path)
        #expect(store.resumeDataURL(for: id) != store.resumeDataURL(for: "../videos/intro 8.mp4"))
    }

    @Test(
        "when two steps' file work runs in the reverse of the ledger's order, should leave no resume data that no entry names"
    )
    func stepsOutOfOrder() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        _ = store.load()
        var ledger = Ledger()
        _ = ledger.begin(
            Ledger.Start(
                id: "a", token: "token-a",
                kind: .download(
                    destination: folder.appendingPathComponent("v"), replacesExistingFile: true,
                    createsFolders: true),
                networkRequest: nil, acceptableStatusCodes: [200...299], requestID: UUID(), sequenceNumber: 1,
                startDate: Date()))
        _ = ledger.prepared(
            id: "a", token: "token-a", request: URLRequest(url: URL(string: "https://api.example.com/v")!),
            sentDate: Date())
        // A: the download is interrupted and leaves resume data, which its snapshot names.
        let interrupted = ledger.completed(
            token: "token-a", BackgroundTransferOutcome.SystemCompletion(error: URLError(.networkConnectionLost)),
            resumeData: Data("resume".utf8), limit: 100)
        _ = ledger.reporting(id: "a", token: "token-a")
        _ = ledger.reported(id: "a", token: "token-a", saved: true)
        // B, taken after A: the app cancels the ID, which drops the resume data.
        let cancelled = ledger.cancel(id: "a")

        store.apply(cancelled)
        store.apply(interrupted)

        #expect(interrupted.resumeDataToWrite.map(\.id) == ["a"] && cancelled.resumeDataToRemove == ["a"])
        #expect(fileNames(in: folder) == ["transfers.json"])
        #expect(store.load() == .loaded(Ledger.Persisted()))
    }

    @Test("when a resume file no entry names is on disk at load, should remove it and keep the named one")
    func sweepAtLoad() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = BackgroundTransferStore(directory: folder)
        _ = earlier.load()
        var step = Ledger.Step()
        step.resumeDataToWrite = [("kept", Data([1]))]
        step.snapshot = Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(resumeData: ["kept"]))
        earlier.apply(step)
        // What a crash between the resume data's write and the ledger's save leaves.
        try Data([2]).write(to: earlier.resumeDataURL(for: "orphan"))

        let loaded = BackgroundTransferStore(directory: folder).load()

        #expect(loaded == .loaded(Ledger.Persisted(resumeData: ["kept"])))
        #expect(earlier.resumeData(for: "kept") == Data([1]))
        #expect(earlier.resumeData(for: "orphan") == nil)
        #expect(fileNames(in: folder).count == 2)
    }

    @Test("when the ledger cannot be read yet, should keep every resume file, and sweep once it can be read")
    func noSweepWhileBlocked() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BackgroundTransferStore(directory: folder)
        let ledger = folder.appendingPathComponent("transfers.json")
        try FileManager.default.createDirectory(at: ledger, withIntermediateDirectories: false)
        try Data([1]).write(to: store.resumeDataURL(for: "a"))
        try Data([2]).write(to: store.resumeDataURL(for: "b"))

        let blocked = store.load()
        let kept = fileNames(in: folder).count
        try FileManager.default.removeItem(at: ledger)
        try JSONEncoder().encode(Ledger.Persisted(resumeData: ["a"])).write(to: ledger)
        let read = store.load()
        let saved = store.save(Ledger.Snapshot(number: 1, persisted: Ledger.Persisted(resumeData: ["a"])))

        #expect(blocked == .blocked && kept == 3)
        #expect(read == .loaded(Ledger.Persisted(resumeData: ["a"])) && saved)
        #expect(store.resumeData(for: "a") == Data([1]) && store.resumeData(for: "b") == nil)
    }

    @Test("when an identifier has characters unfit for a file name, should replace them and keep it unique")
    func folderNames() {
        let plain = BackgroundTransferStore.folderName(for: "com.example.app.transfers")
        let slash = BackgroundTransferStore.folderName(for: "com/example")
        let underscore = BackgroundTransferStore.folderName(for: "com_example")
        let hidden = BackgroundTransferStore.folderName(for: ".hidden")
        let long = BackgroundTransferStore.folderName(for: String(repeating: "é", count: 1_000))

        #expect(plain.hasPrefix("com.example.app.transfers-") && plain.count == 25 + 1 + 16)
        #expect(slash.hasPrefix("com_example-") && !slash.contains("/"))
        #expect(slash != underscore)
        #expect(hidden.hasPrefix("_.hidden-"))
        #expect(long.utf8.count == 64 + 1 + 16)
        #expect(BackgroundTransferStore.folderName(for: "").hasPrefix("_-"))
    }

    @Test("when no folder is given, should keep the state under Application Support, by identifier")
    func defaultFolder() {
        let folder = BackgroundTransferStore.directory(for: "transfers", in: nil)
        let given = BackgroundTransferStore.directory(for: "transfers", in: URL(fileURLWithPath: "/tmp/state"))

        #expect(
            folder.path.hasSuffix(
                "NetworkModule/BackgroundTransfers/" + BackgroundTransferStore.folderName(for: "transfers")))
        #expect(given.deletingLastPathComponent().path == "/tmp/state")
    }
}
