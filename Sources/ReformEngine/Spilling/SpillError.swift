import ReformSDK
import ReformSystem

/// Why a sort could not keep its records in a temporary file: what failed, where, and what to do.
package struct SpillError: Error, Sendable, CustomStringConvertible {
    /// The record error code a spill failure travels under through a chain, which only throws
    /// ``RecordError``; the output turns it back into a failure of the run (``isSpillFailure``).
    static let code = "sort-spill-failed"

    /// What failed and how to fix it.
    package let message: String

    package var description: String { message }

    /// Why a sort needs a spill file, for messages.
    static let sorting = "sorting needs a temporary file when records exceed its memory budget"

    /// The failure of `operation` on a spill file in `folder` needed for `purpose`, from `errno`.
    init(_ operation: String, folder: String, errno code: Int32, purpose: String = SpillError.sorting) {
        message =
            "\(purpose) (in \(folder)), and \(operation) failed: "
            + "\(String(cString: strerror(code))); free space there or set TMPDIR to a folder with room"
    }

    /// A failure described by `message`.
    init(message: String) {
        self.message = message
    }

    /// The failure as a record error, to cross a reformer's `throws(RecordError)`.
    var recordError: RecordError { RecordError(code: SpillError.code, message: message) }
}

extension RecordError {
    /// Whether this is a sort's spill failure (``SpillError``): a failure of the run, not of one record.
    var isSpillFailure: Bool { code == SpillError.code }
}
