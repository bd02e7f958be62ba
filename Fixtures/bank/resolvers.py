"""GraphQL resolvers over the same per-user state the REST routes use.

Resolvers receive ``info.context`` (a ``Context``) and run under the tenant's state lock,
held by the caller for the whole execution. ``BankError`` becomes a GraphQL error whose
``extensions.code`` is the upper-cased REST error code.
"""

from dataclasses import dataclass

from graphql import GraphQLError

from bank import Bank, UserBank, amount_to_cents


@dataclass
class Context:
    bank: Bank
    user: UserBank
    language: str  # "en" or "fr", from Accept-Language
    tenant: str = ""  # the X-Tenant header, "" when absent


def _user(info) -> UserBank:
    return info.context.user


def account(_root, info, id):
    found = _user(info).accounts.get(id)
    if found is None:
        raise GraphQLError("not found", extensions={"code": "NOT_FOUND"})
    return found


def flaky(_root, _info):
    raise GraphQLError("flaky field failed", extensions={"code": "FLAKY"})


EXCHANGE_RATES = ({"currency": "USD", "rate": 0.66}, {"currency": "EUR", "rate": 0.61}, {"currency": "GBP", "rate": 0.52})
CREDIT_SCORES = {"alice": (742, "GOOD"), "bob": (655, "FAIR"), "carol": (801, "EXCELLENT")}


def credit_score(_root, info):
    user_id = _user(info).user.id
    score, band = CREDIT_SCORES.get(user_id, (700, "GOOD"))
    return {"id": f"cs-{user_id}", "score": score, "band": band}


def one_time_code(_root, info):
    bank = info.context.bank
    bank.codes_issued = getattr(bank, "codes_issued", 0) + 1
    return f"otc-{bank.codes_issued}"


def make_payment(_root, info, input):
    cents = amount_to_cents(input["amount"])
    account_obj, tx = _user(info).make_payment(input["fromAccountId"], input["payeeId"], cents, input.get("reference"))
    return {"account": account_obj, "transaction": tx}


def update_profile(_root, info, input):
    return _user(info).update_profile(dict(input), replace=False)


def add_payee(_root, info, input):
    return _user(info).add_payee(input["name"], input["bsb"], input["accountNumber"])


def delete_card(_root, info, id):
    return {"id": _user(info).delete_card(id).id, "deleted": True}


def notifications(_root, info, unreadOnly=False):
    items = _user(info).notifications.values()
    return [n for n in items if not (unreadOnly and n.read)]


RESOLVERS = {
    ("Query", "me"): lambda _root, info: _user(info).user,
    ("Query", "accounts"): lambda _root, info: list(_user(info).accounts.values()),
    ("Query", "account"): account,
    ("Query", "transactions"): lambda _root, info, accountId, first=20, after=None:
        _user(info).transactions_after(accountId, first, after),
    ("Query", "cards"): lambda _root, info: list(_user(info).cards.values()),
    ("Query", "payees"): lambda _root, info: list(_user(info).payees.values()),
    ("Query", "scheduledPayments"): lambda _root, info: list(_user(info).scheduled.values()),
    ("Query", "profile"): lambda _root, info: _user(info).profile,
    ("Query", "statements"): lambda _root, info, accountId=None: _user(info).statements_for(accountId),
    ("Query", "offers"): lambda _root, info: list(_user(info).offers.values()),
    ("Query", "notifications"): notifications,
    ("Query", "featureFlags"): lambda _root, info: info.context.bank.flags,
    ("Query", "payments"): lambda _root, info: _user(info).payment_list(),
    ("Query", "node"): lambda _root, info, id: _user(info).find_node(id),
    ("Query", "search"): lambda _root, info, term: _user(info).search(term),
    ("Query", "flaky"): flaky,
    ("Query", "exchangeRates"): lambda _root, _info: [dict(rate) for rate in EXCHANGE_RATES],
    ("Query", "tenantNotice"): lambda _root, info: f"notice for {info.context.tenant or 'no tenant'}",
    ("Query", "creditScore"): credit_score,
    ("Query", "oneTimeCode"): one_time_code,
    ("Account", "transactions"): lambda acc, info, first=20, after=None:
        _user(info).transactions_after(acc.id, first, after),
    ("ScheduledPayment", "payee"): lambda sp, info: _user(info).payees[sp.payeeId],
    ("Offer", "title"): lambda offer, info: offer.titles[info.context.language],
    ("Offer", "description"): lambda offer, info: offer.descriptions[info.context.language],
    ("User", "profile"): lambda _user_obj, info: _user(info).profile,
    ("User", "accounts"): lambda _user_obj, info: list(_user(info).accounts.values()),
    ("Mutation", "makePayment"): make_payment,
    ("Mutation", "updateProfile"): update_profile,
    ("Mutation", "addPayee"): add_payee,
    ("Mutation", "deleteCard"): delete_card,
}
