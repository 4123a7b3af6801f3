import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file a response body is written to as it arrives, through POSIX calls: a full disk or a
/// file-size limit is an error to report, never an exception (`FileHandle.write(_:)` raises one
/// on a failed write, and its throwing successor needs iOS 13.4).
final class TransferFile: @unchecked Sendable {
    // @unchecked Sendable is safe: the descriptor's position and `writtenLength` change only in
    // `write(_:)`, under `lock`; `url` and `descriptor` never change.

    /// Where the file is.
    let url: URL
    private let descriptor: Int32
    private let lock = NSLock()
    private var writtenLength: Int64

    /// Opens `url` for writing, creating it if missing, keeping its first `keeping` bytes and
    /// cutting off the rest (`0` replaces the contents).
    ///
    /// Fails with `URLError.cannotCreateFile` when the file cannot be opened or created, and with
    /// `URLError.cannotWriteToFile` when it holds fewer than `keeping` bytes (a resumed body must
    /// join the bytes it continues) or cannot be cut.
    init(url: URL, keeping: Int64) throws(URLError) {
        let descriptor = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else {
            throw Self.error(.cannotCreateFile, "cannot create or open the file", url: url, errno: errno)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let failure = errno
            close(descriptor)
            throw Self.error(.cannotCreateFile, "cannot read the size of the file", url: url, errno: failure)
        }
        let existing = Int64(status.st_size)
        let kept = max(0, keeping)
        guard existing >= kept else {
            close(descriptor)
            throw Self.error(
                .cannotWriteToFile, "the resumed body continues after byte \(kept), but the file holds \(existing)",
                url: url, errno: nil)
        }
        // Cut only what is there to cut: a device such as /dev/full cannot be truncated.
        guard existing == kept || ftruncate(descriptor, off_t(kept)) == 0,
            lseek(descriptor, off_t(kept), SEEK_SET) >= 0
        else {
            let failure = errno
            close(descriptor)
            throw Self.error(.cannotWriteToFile, "cannot cut the file to \(kept) bytes", url: url, errno: failure)
        }
        self.url = url
        self.descriptor = descriptor
        self.writtenLength = kept
    }

    deinit {
        close(descriptor)
    }

    /// Bytes in the file: those kept when it was opened, and those written since.
    var length: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return writtenLength
    }

    /// Appends all of `data`, or throws `URLError.cannotWriteToFile` saying why (no space left, a
    /// file-size limit, …). What was written before the failure stays.
    func write(_ data: Data) throws(URLError) {
        lock.lock()
        defer { lock.unlock() }
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            guard var next = buffer.baseAddress else { return nil }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(descriptor, next, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                guard written > 0 else { return EIO }
                next += written
                remaining -= written
            }
            return nil
        }
        if let failure {
            throw Self.error(.cannotWriteToFile, "cannot write to the file", url: url, errno: failure)
        }
        writtenLength += Int64(data.count)
    }

    /// Renames the file at `source` to `destination` in one step (`rename(2)`: on one volume, and
    /// replacing a file already there). Fails with `URLError.cannotMoveFile`.
    static func rename(_ source: URL, to destination: URL) throws(URLError) {
        let result = source.withUnsafeFileSystemRepresentation { from in
            destination.withUnsafeFileSystemRepresentation { to -> Int32 in
                guard let from, let to else { return -1 }
                return systemRename(from, to)
            }
        }
        if result != 0 {
            throw error(.cannotMoveFile, "cannot move the download into place", url: destination, errno: errno)
        }
    }

    /// The `URLError` of a file failure: the path and the system's reason in its message.
    static func error(_ code: URLError.Code, _ what: String, url: URL, errno: Int32?) -> URLError {
        var message = "\(what) at \(url.path)"
        if let errno, let reason = strerror(errno) {
            message += ": \(String(cString: reason))"
        }
        return URLError(code, message: message, failingURL: url)
    }
}

/// `rename(2)`, under a name the method `rename(_:to:)` does not hide.
private func systemRename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 {
    rename(source, destination)
}

/// `write(2)`, under a name the method `write(_:)` does not hide.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
