import CLibPQ
import ReformSystem

/// libpq's functions, loaded from the system's `libpq.so.5` the first time a PostgreSQL table is
/// used, not linked: libpq brings OpenSSL, Kerberos and LDAP with it, which would cost every run
/// (5.6 MB of memory at start, measured) for a feature most runs do not use, and a machine that
/// never loads PostgreSQL does not need libpq installed. `CLibPQ` gives the declarations.
struct LibPQ: @unchecked Sendable {
    let connectdb: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    let status: @convention(c) (OpaquePointer?) -> ConnStatusType
    let errorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let finish: @convention(c) (OpaquePointer?) -> Void
    let exec: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    let execParams:
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> OpaquePointer?
    let clear: @convention(c) (OpaquePointer?) -> Void
    let resultStatus: @convention(c) (OpaquePointer?) -> ExecStatusType
    let resultErrorField: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    let resultErrorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let putCopyData: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
    let putCopyEnd: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let getResult: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let sendQuery: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let setSingleRowMode: @convention(c) (OpaquePointer?) -> Int32
    let nfields: @convention(c) (OpaquePointer?) -> Int32
    let ntuples: @convention(c) (OpaquePointer?) -> Int32
    let ftype: @convention(c) (OpaquePointer?, Int32) -> Oid
    let getisnull: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let getvalue: @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let transactionStatus: @convention(c) (OpaquePointer?) -> PGTransactionStatusType

    /// The library, loaded once; the failure says how to install it.
    static let shared: Result<LibPQ, PostgresError> = load()

    private static func load() -> Result<LibPQ, PostgresError> {
        guard let library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL) ?? dlopen("libpq.so", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(
                PostgresError(
                    sqlState: "",
                    message: "PostgreSQL tables need the system libpq, which cannot be loaded (\(reason)); "
                        + "install it (apt-get install libpq5)"))
        }
        let names = [
            "PQconnectdb", "PQstatus", "PQerrorMessage", "PQfinish", "PQexec", "PQexecParams", "PQclear", "PQresultStatus",
            "PQresultErrorField", "PQresultErrorMessage", "PQputCopyData", "PQputCopyEnd", "PQgetResult", "PQsendQuery",
            "PQsetSingleRowMode", "PQnfields", "PQntuples", "PQftype", "PQgetisnull", "PQgetvalue", "PQtransactionStatus",
        ]
        let missing = names.filter { dlsym(library, $0) == nil }
        guard missing.isEmpty else {
            return .failure(
                PostgresError(
                    sqlState: "",
                    message: "the system libpq lacks \(missing.joined(separator: ", ")); install a libpq of PostgreSQL 9.2 or later"))
        }
        // Every name is there (checked above): each address becomes its C function's type.
        func symbol<F>(_ name: String, as type: F.Type) -> F {
            unsafeBitCast(dlsym(library, name), to: type)
        }
        let loaded = LibPQ(
            connectdb: symbol("PQconnectdb", as: (@convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?).self),
            status: symbol("PQstatus", as: (@convention(c) (OpaquePointer?) -> ConnStatusType).self),
            errorMessage: symbol("PQerrorMessage", as: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?).self),
            finish: symbol("PQfinish", as: (@convention(c) (OpaquePointer?) -> Void).self),
            exec: symbol("PQexec", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?).self),
            execParams: symbol(
                "PQexecParams",
                as: (@convention(c) (
                    OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
                    UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
                ) -> OpaquePointer?).self),
            clear: symbol("PQclear", as: (@convention(c) (OpaquePointer?) -> Void).self),
            resultStatus: symbol("PQresultStatus", as: (@convention(c) (OpaquePointer?) -> ExecStatusType).self),
            resultErrorField: symbol(
                "PQresultErrorField", as: (@convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?).self),
            resultErrorMessage: symbol(
                "PQresultErrorMessage", as: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?).self),
            putCopyData: symbol("PQputCopyData", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32).self),
            putCopyEnd: symbol("PQputCopyEnd", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32).self),
            getResult: symbol("PQgetResult", as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self),
            sendQuery: symbol("PQsendQuery", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32).self),
            setSingleRowMode: symbol("PQsetSingleRowMode", as: (@convention(c) (OpaquePointer?) -> Int32).self),
            nfields: symbol("PQnfields", as: (@convention(c) (OpaquePointer?) -> Int32).self),
            ntuples: symbol("PQntuples", as: (@convention(c) (OpaquePointer?) -> Int32).self),
            ftype: symbol("PQftype", as: (@convention(c) (OpaquePointer?, Int32) -> Oid).self),
            getisnull: symbol("PQgetisnull", as: (@convention(c) (OpaquePointer?, Int32, Int32) -> Int32).self),
            getvalue: symbol("PQgetvalue", as: (@convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?).self),
            transactionStatus: symbol("PQtransactionStatus", as: (@convention(c) (OpaquePointer?) -> PGTransactionStatusType).self))
        return .success(loaded)
    }
}
