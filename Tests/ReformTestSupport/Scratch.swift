import Foundation

/// Where tests write their files: one folder per test process under the system's temporary folder
/// (`$TMPDIR/reform-tests-PID`), removed when the process exits, so that a test run leaves nothing
/// behind. (Each `swift test` left ~830 folders there when every test made its own and few removed
/// them; a folder of 100,000 entries made every `reform run` writing beside them 40 ms slower, as
/// outputs look for their stale temporary files.) The folder of a test process that was killed is
/// removed by the next test process.
public enum Scratch {
    /// A new path inside this process's scratch folder: `PREFIX-UUID` and `suffix`. Nothing is
    /// made there; make a folder or write a file at it.
    public static func path(_ prefix: String, suffix: String = "") -> String {
        root + "/" + prefix + "-" + UUID().uuidString + suffix
    }

    /// This process's scratch folder: the temporary folder (`TMPDIR`) of the processes tests start,
    /// so that what they leave there (SwiftPM's `TemporaryDirectory.*`) goes with it.
    public static var folder: String { root }

    /// The process's scratch folder, made (and its removal at exit registered) on first use.
    private static let root: String = {
        let temporary = FileManager.default.temporaryDirectory.path
        removeFoldersOfEndedProcesses(in: temporary)
        let folder = temporary + "/" + namePrefix + String(getpid())
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        atexit { Scratch.removeRoot() }
        return folder
    }()

    private static let namePrefix = "reform-tests-"

    private static func removeRoot() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Removes the scratch folders of test processes that no longer run.
    private static func removeFoldersOfEndedProcesses(in temporary: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix(namePrefix) {
            guard let pid = Int32(name.dropFirst(namePrefix.count)), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: temporary + "/" + name)
            }
        }
    }
}
