"""The GraphQL schema (SDL) and its executable form with resolvers attached.

The SDL here is the contract documented in README.md; ``resolvers.py`` supplies the
functions. Fields without a resolver read the attribute (or dict key) of the same name.
"""

from graphql import GraphQLSchema, build_schema

import resolvers

SDL = """
interface Node { id: ID! }

enum AccountType { CHECKING SAVINGS CREDIT }

type Account implements Node {
  id: ID!
  accountToken: String!
  name: String!
  type: AccountType!
  balance: Float!
  availableBalance: Float!
  currency: String!
  transactions(first: Int = 20, after: String): [Transaction!]!
}

type Transaction implements Node {
  id: ID!
  accountId: ID!
  amount: Float!
  description: String!
  date: String!
  status: String!
}

type Card implements Node { id: ID! last4: String! status: String! accountId: ID! }

type Payee implements Node { id: ID! name: String! bsb: String! accountNumber: String! }

type ScheduledPayment implements Node {
  id: ID!
  fromAccountId: ID!
  payee: Payee!
  amount: Float!
  nextDate: String!
}

type Profile implements Node { id: ID! displayName: String! email: String! phone: String }

type Statement implements Node { id: ID! accountId: ID! period: String! url: String! }

type Offer implements Node { id: ID! title: String! description: String! }

type Notification implements Node { id: ID! title: String! read: Boolean! }

type Payment implements Node {
  id: ID!
  fromAccountId: ID!
  payeeId: ID!
  amount: Float!
  reference: String
  date: String!
  transactionId: ID!
}

type FeatureFlag { name: String! enabled: Boolean! }

"Public reference data, the same for every user: @cacheControl(maxAge: 300) (rate: maxAge 60)."
type ExchangeRate { currency: String! rate: Float! }

"The user's credit score: @cacheControl(maxAge: 120, scope: PRIVATE) (score: maxAge 30)."
type CreditScore { id: ID! score: Int! band: String! }

type User implements Node { id: ID! profile: Profile! accounts: [Account!]! }

union SearchResult = Account | Payee | Transaction

type Query {
  me: User!
  accounts: [Account!]!
  account(id: ID!): Account
  transactions(accountId: ID!, first: Int = 20, after: String): [Transaction!]!
  cards: [Card!]!
  payees: [Payee!]!
  scheduledPayments: [ScheduledPayment!]!
  profile: Profile!
  statements(accountId: ID): [Statement!]!
  offers: [Offer!]!
  notifications(unreadOnly: Boolean = false): [Notification!]!
  featureFlags: [FeatureFlag!]!
  payments: [Payment!]!
  node(id: ID!): Node
  search(term: String!): [SearchResult!]!
  "Always fails: null plus an error with a path, for partial-data tests."
  flaky: String
  "Cache hints (cache_hints.py): PUBLIC, maxAge 300; each rate maxAge 60."
  exchangeRates: [ExchangeRate!]!
  "Cache hints: PUBLIC, maxAge 60, answered with Vary: X-Tenant; says which X-Tenant header the request sent."
  tenantNotice: String!
  "Cache hints: PRIVATE, maxAge 120; the score maxAge 30."
  creditScore: CreditScore!
  "A new code on every call, answered with Cache-Control: no-store."
  oneTimeCode: String!
}

input PaymentInput { fromAccountId: ID! payeeId: ID! amount: Float! reference: String }

type PaymentResult { account: Account! transaction: Transaction! }

input ProfileInput { displayName: String email: String phone: String }

input PayeeInput { name: String! bsb: String! accountNumber: String! }

type DeleteCardResult { id: ID! deleted: Boolean! }

type Mutation {
  makePayment(input: PaymentInput!): PaymentResult!
  updateProfile(input: ProfileInput!): Profile!
  addPayee(input: PayeeInput!): Payee!
  deleteCard(id: ID!): DeleteCardResult!
}
"""


def build() -> GraphQLSchema:
    """Builds the schema from SDL and attaches every resolver listed in ``resolvers.RESOLVERS``."""
    schema = build_schema(SDL)
    for (type_name, field_name), resolve in resolvers.RESOLVERS.items():
        schema.get_type(type_name).fields[field_name].resolve = resolve
    return schema


SCHEMA = build()
