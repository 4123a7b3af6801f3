import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("JSONResponseDecoder")
struct JSONResponseDecoderTests {
    struct User: Decodable, Equatable {
        var id: Int
        var fullName: String
    }

    @Test("when given settings, should apply them to the decoder of every body")
    func appliesSettingsPerBody() throws {
        let calls = LockedState(0)
        let decoder = JSONResponseDecoder { decoder in
            calls.withLock { $0 += 1 }
            decoder.keyDecodingStrategy = .convertFromSnakeCase
        }
        let first = try NetworkResponse.make(json: #"{"id":1,"full_name":"Ada"}"#)
        let second = try NetworkResponse.make(json: #"{"id":2,"full_name":"Grace"}"#)

        #expect(try first.decode(User.self, decoder: decoder) == User(id: 1, fullName: "Ada"))
        #expect(try second.decode(User.self, decoder: decoder) == User(id: 2, fullName: "Grace"))
        #expect(calls.withLock { $0 } == 2)
    }

    @Test("when the body does not match, should fail with decodingFailed naming the missing key")
    func decodingErrorKeepsItsKey() throws {
        let response = try NetworkResponse.make(json: #"{"id":1}"#)

        do throws(NetworkError) {
            _ = try response.decode(User.self, decoder: JSONResponseDecoder())
            Issue.record("decoded a body without fullName")
        } catch {
            guard case .decodingFailed(let failure) = error else {
                Issue.record("expected decodingFailed, got \(error)")
                return
            }
            #expect(failure.kind == .keyNotFound("fullName"))
        }
    }

    @Test("when one decoder serves many threads at once, should decode every body right")
    func sharedAcrossThreads() throws {
        let decoder: any ResponseDecoder = JSONResponseDecoder { $0.keyDecodingStrategy = .convertFromSnakeCase }
        let mismatches = LockedState(0)

        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let body = Data(#"{"id":\#(index),"full_name":"User \#(index)"}"#.utf8)
            let user = try? decoder.decode(User.self, from: body)
            if user != User(id: index, fullName: "User \(index)") { mismatches.withLock { $0 += 1 } }
        }

        #expect(mismatches.withLock { $0 } == 0)
    }
}
