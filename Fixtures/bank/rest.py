"""REST routes of the bank (``/api/...``) over the tenant's shared state.

Each handler receives a ``Call`` and runs with the tenant's state lock held; business
errors are raised as ``BankError`` and turned into JSON error bodies by the dispatcher.
"""

from email.utils import formatdate, parsedate_to_datetime

from bank import BankError, amount_to_cents, invalid
from httpio import Request, Response, cacheable_json, etag_of, json_response, not_modified, read_json_body
from router import Call, Router


def _int_arg(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.arg(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BankError(400, "invalid_parameter", f"{name} must be an integer") from None
    if not low <= value <= high:
        raise BankError(400, "invalid_parameter", f"{name} must be between {low} and {high}")
    return value


def _json_object(request: Request) -> dict:
    try:
        body = read_json_body(request)
    except ValueError as error:
        raise BankError(400, "invalid_json", str(error)) from None
    if not isinstance(body, dict):
        raise invalid("JSON object expected")
    return body


def accounts(call: Call) -> Response:
    body = [a.to_json() for a in call.user.accounts.values()]
    return cacheable_json(call.request, body, "private, max-age=60")


def account(call: Call) -> Response:
    return cacheable_json(call.request, call.user.account(call.params["id"]).to_json(), "private, max-age=60")


def account_by_token(call: Call) -> Response:
    found = call.user.account_by_token(call.params["token"])
    return cacheable_json(call.request, found.to_json(), "private, max-age=60")


def balance(call: Call) -> Response:
    body = call.user.account(call.params["id"]).balance_json()
    return json_response(body, headers=[("Cache-Control", "private, max-age=30")])


def transactions(call: Call) -> Response:
    page = _int_arg(call.request, "page", 1, 1, 1_000_000)
    size = _int_arg(call.request, "pageSize", 20, 1, 100)
    return json_response(call.user.transaction_page(call.params["id"], page, size))


def cards(call: Call) -> Response:
    return json_response([c.to_json() for c in call.user.cards.values()])


def delete_card(call: Call) -> Response:
    call.user.delete_card(call.params["id"])
    return Response(204)


def payees(call: Call) -> Response:
    return json_response([p.to_json() for p in call.user.payees.values()])


def add_payee(call: Call) -> Response:
    body = _json_object(call.request)
    payee = call.user.add_payee(body.get("name"), body.get("bsb"), body.get("accountNumber"))
    return json_response(payee.to_json(), 201)


def scheduled_payments(call: Call) -> Response:
    return json_response([s.to_json() for s in call.user.scheduled.values()])


def profile(call: Call) -> Response:
    """ETag and Last-Modified; If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2)."""
    response = _profile_response(call)
    if response.status == 304 or call.request.header("If-None-Match"):
        return response
    since = call.request.header("If-Modified-Since")
    if since:
        try:
            if call.user.profile_modified <= parsedate_to_datetime(since).timestamp():
                return not_modified(response)
        except (TypeError, ValueError):
            pass  # an unparseable date is ignored, as RFC 9110 asks
    return response


def _profile_response(call: Call, conditional: bool = True) -> Response:
    last_modified = [("Last-Modified", formatdate(call.user.profile_modified, usegmt=True))]
    body = call.user.profile.to_json()
    if not conditional:
        response = json_response(body, headers=[("Cache-Control", "private, max-age=60")] + last_modified)
        response.headers.append(("ETag", etag_of(response.body)))
        return response
    return cacheable_json(call.request, body, "private, max-age=60", last_modified)


def update_profile(call: Call) -> Response:
    """PUT replaces displayName, email and phone; PATCH changes the fields it names."""
    call.user.update_profile(_json_object(call.request), replace=call.request.method == "PUT")
    return _profile_response(call, conditional=False)


def statements(call: Call) -> Response:
    return json_response([s.to_json() for s in call.user.statements_for(call.request.arg("accountId"))])


def preferred_language(request: Request) -> str:
    """``fr`` when the first language of Accept-Language is French, else ``en``."""
    first = (request.header("Accept-Language") or "").split(",")[0].strip().lower()
    return "fr" if first.startswith("fr") else "en"


def offers(call: Call) -> Response:
    language = preferred_language(call.request)
    headers = [("Cache-Control", "private, max-age=120"), ("Vary", "Accept-Language"),
               ("Content-Language", language)]
    return json_response([o.to_json(language) for o in call.user.offers.values()], headers=headers)


def notifications(call: Call) -> Response:
    body = [n.to_json() for n in call.user.notifications.values()]
    return json_response(body, headers=[("Cache-Control", "no-store")])


def feature_flags(call: Call) -> Response:
    return cacheable_json(call.request, [f.to_json() for f in call.bank.flags], "public, max-age=300")


def payments(call: Call) -> Response:
    return json_response([p.to_json() for p in call.user.payment_list()])


def make_payment(call: Call) -> Response:
    body = _json_object(call.request)
    missing = [k for k in ("fromAccountId", "payeeId", "amount") if body.get(k) is None]
    if missing:
        raise invalid("missing fields: " + ", ".join(missing))
    reference = body.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise invalid("reference must be a string")
    cents = amount_to_cents(body["amount"])
    account, tx = call.user.make_payment(str(body["fromAccountId"]), str(body["payeeId"]), cents, reference)
    return json_response({"account": account.to_json(), "transaction": tx.to_json()}, 201)


def add_bank_routes(router: Router) -> None:
    router.add("GET", "/api/accounts", accounts)
    router.add("GET", "/api/accounts/by-token/{token}", account_by_token)
    router.add("GET", "/api/accounts/{id}", account)
    router.add("GET", "/api/accounts/{id}/balance", balance)
    router.add("GET", "/api/accounts/{id}/transactions", transactions)
    router.add("GET", "/api/cards", cards)
    router.add("DELETE", "/api/cards/{id}", delete_card)
    router.add("GET", "/api/payees", payees)
    router.add("POST", "/api/payees", add_payee)
    router.add("GET", "/api/scheduled-payments", scheduled_payments)
    router.add("GET", "/api/profile", profile)
    router.add("PUT", "/api/profile", update_profile)
    router.add("PATCH", "/api/profile", update_profile)
    router.add("GET", "/api/statements", statements)
    router.add("GET", "/api/offers", offers)
    router.add("GET", "/api/notifications", notifications)
    router.add("GET", "/api/feature-flags", feature_flags, auth=False)
    router.add("GET", "/api/payments", payments)
    router.add("POST", "/api/payments", make_payment)
