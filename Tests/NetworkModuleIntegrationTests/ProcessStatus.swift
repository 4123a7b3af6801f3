import Foundation

/// What `/proc/self/status` says about this process (Linux only): its threads, its resident
/// memory now (`VmRSS`) and at its peak (`VmHWM`).
enum ProcessStatus {
    /// The number in field `name`, in bytes for the memory fields (given there in kB); `nil`
    /// where there is no such file or field.
    static func value(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
        else { return nil }
        let fields = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let number = fields.first.flatMap({ Int($0) }) else { return nil }
        return fields.count > 1 && fields[1] == "kB" ? number * 1024 : number
    }
}
