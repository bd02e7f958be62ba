import Foundation
import Synchronization

/// Certificates for the TLS tests, made by the `openssl` command line into a temporary directory once per process:
/// a CA; a server certificate for `localhost` and `127.0.0.1` signed by it; a client certificate signed by it (for
/// mutual TLS); a second CA nobody's certificate comes from (an "unknown CA" to trust instead); and the same server
/// key with a certificate that expired on 2 January 2020.
public struct TestCertificates: Sendable {
    /// The directory holding every file below.
    public let directory: String

    /// The CA that issued the server and client certificates (PEM).
    public var caFile: String { directory + "/ca.pem" }
    /// A CA that issued nothing the servers present.
    public var unknownCAFile: String { directory + "/other-ca.pem" }
    /// The server certificate: DNS `localhost`, IP `127.0.0.1`.
    public var serverCertificateFile: String { directory + "/server.pem" }
    /// The server certificate's key (also the expired certificate's).
    public var serverKeyFile: String { directory + "/server.key" }
    /// The same names, valid only from 1 to 2 January 2020.
    public var expiredServerCertificateFile: String { directory + "/expired.pem" }
    /// The client certificate for mutual TLS.
    public var clientCertificateFile: String { directory + "/client.pem" }
    /// The client certificate's key.
    public var clientKeyFile: String { directory + "/client.key" }

    private static let shared = Mutex<Task<TestCertificates, any Error>?>(nil)

    /// The process's certificates, generated on first use.
    public static func shared() async throws -> TestCertificates {
        let task = shared.withLock { task in
            if let task { return task }
            let made = Task { () throws -> TestCertificates in try await offThePool { try generate() } }
            task = made
            return made
        }
        return try await task.value
    }

    private static func generate() throws -> TestCertificates {
        let directory = NSTemporaryDirectory() + "ucache-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd "$1"
            key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1"; }
            key ca.key; key other-ca.key; key server.key; key client.key
            openssl req -x509 -new -key ca.key -out ca.pem -days 3650 -subj "/CN=UnifiedCache test CA"
            openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 3650 -subj "/CN=UnifiedCache unknown CA"
            openssl req -new -key server.key -out server.csr -subj "/CN=localhost"
            printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > server.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 3650 \\
                -extfile server.ext
            openssl req -new -key client.key -out client.csr -subj "/CN=ucache replica"
            printf 'extendedKeyUsage=clientAuth\\n' > client.ext
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 3650 \\
                -extfile client.ext
            printf '[ca]\\ndefault_ca=test\\n[test]\\ndatabase=index.txt\\nnew_certs_dir=.\\nserial=serial\\n' > ca.cnf
            printf 'certificate=ca.pem\\nprivate_key=ca.key\\ndefault_md=sha256\\npolicy=any\\n[any]\\n' >> ca.cnf
            printf 'commonName=supplied\\n' >> ca.cnf
            : > index.txt
            echo 01 > serial
            openssl ca -batch -notext -config ca.cnf -startdate 20200101000000Z -enddate 20200102000000Z \\
                -in server.csr -out expired.pem -extfile server.ext
            """
        let shell = try ChildProcess.spawn("/bin/sh", ["-c", script, "sh", directory], standardOutput: true)
        let output = shell.output?.readDataToEndOfFile() ?? Data()
        guard shell.wait() == 0 else {
            throw FixtureError(
                "openssl could not make the test certificates: \(String(decoding: output, as: UTF8.self))")
        }
        return TestCertificates(directory: directory)
    }
}
