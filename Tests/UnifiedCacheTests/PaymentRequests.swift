import CurlHTTP
import GraphQLCache
import RESTCache

/// Alice's payment of 40 from account 101, as a REST request; the entity-link and preset tests send it to see
/// what a mutation invalidates.
struct PaymentBody: Encodable, Sendable {
    var fromAccountId = "101"
    var payeeId = "payee-alice-1"
    var amount = 40.0
    var reference = "t"
}

struct RESTPayment: RequestType {
    typealias Response = AnyJSON
    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payments" }
    var body: PaymentBody? = PaymentBody()
}

/// Account 101's balance as a GraphQL query, read before and after a payment.
let accountBalanceQuery = UntypedGraphQLOperation(
    document: "query AccountBalance($id: ID!) { account(id: $id) { id balance availableBalance } }",
    operationName: "AccountBalance",
    variables: ["id": "101"]
)
