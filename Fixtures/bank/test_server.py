#!/usr/bin/env python3
"""Self-check of the fixture server, without pytest: ``python3 Fixtures/bank/test_server.py``.

Starts ``server.py --port 0`` as a child, runs every check against it over real HTTP, stops
it with SIGTERM, prints ``N passed, N failed`` and exits 0 only when all checks passed.
Each check uses its own tenant, so the checks are independent of each other.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from email.utils import parsedate_to_datetime

from check_client import ALICE, BENCH, BOB, Client, expect, raw_exchange

HERE = os.path.dirname(os.path.abspath(__file__))
READY = re.compile(r"^UCACHE_FIXTURE_READY url=http://127\.0\.0\.1:(\d+) port=(\d+)$")
CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


# REST ------------------------------------------------------------------------------------

@check
def accounts_are_per_user_and_need_a_token(c: Client):
    status, response, body, _ = c.get("/api/accounts", ALICE)
    expect(status == 200 and [a["id"] for a in body] == ["101", "102"], f"alice accounts {status} {body}")
    expect(response.getheader("Cache-Control") == "private, max-age=60", "accounts Cache-Control")
    expect(body[0]["accountToken"] == "atok-101" and body[0]["currency"] == "AUD", "account fields")
    status, response, body, _ = c.get("/api/accounts")
    expect(status == 401 and body["error"] == "unauthorized", "401 without token")
    expect(response.getheader("WWW-Authenticate") == "Bearer", "WWW-Authenticate")
    expect(c.get("/api/accounts", "token-wrong")[0] == 401, "401 with wrong token")
    expect(c.get("/api/accounts/101", BOB)[0] == 404, "bob must not see alice's account")


@check
def etag_revalidation_answers_304(c: Client):
    _, response, _, _ = c.get("/api/accounts/101", ALICE)
    etag = response.getheader("ETag")
    expect(etag, "ETag present")
    status, response, _, raw = c.get("/api/accounts/101", ALICE, {"If-None-Match": etag})
    expect(status == 304 and raw == b"" and response.getheader("ETag") == etag, "304 on matching ETag")
    status, _, body, _ = c.get("/api/accounts/by-token/atok-101", ALICE)
    expect(status == 200 and body["id"] == "101", "by-token lookup")
    expect(c.get("/api/accounts/by-token/101", ALICE)[0] == 404, "an id is not a token")


@check
def balances_transactions_and_pagination(c: Client):
    status, response, body, _ = c.get("/api/accounts/101/balance", ALICE)
    expect(body == {"accountId": "101", "accountToken": "atok-101", "balance": 2500.0, "availableBalance": 2450.0,
                    "currency": "AUD"}, f"balance {body}")
    expect(response.getheader("Cache-Control") == "private, max-age=30", "balance Cache-Control")
    _, _, page, _ = c.get("/api/accounts/101/transactions?page=2&pageSize=20", ALICE)
    expect(page["total"] == 25 and len(page["items"]) == 5 and page["nextPage"] is None, f"page 2 {page}")
    expect(page["items"][0]["id"] == "tx-101-21", "page 2 starts at the 21st transaction")
    _, _, page, _ = c.get("/api/accounts/101/transactions", ALICE)
    expect(page["pageSize"] == 20 and page["nextPage"] == 2, "default page size")
    expect(c.get("/api/accounts/101/transactions?page=0", ALICE)[0] == 400, "page 0 rejected")


@check
def payments_move_money_and_fail_cleanly(c: Client):
    payment = {"fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 100.25, "reference": "rent"}
    status, _, body, _ = c.call("POST", "/api/payments", ALICE, payment)
    expect(status == 201 and body["account"]["balance"] == 2399.75, f"payment {status} {body}")
    expect(body["account"]["availableBalance"] == 2349.75 and body["transaction"]["amount"] == -100.25, "amounts")
    for amount, code in ((1_000_000, "insufficient_funds"), (0, "invalid_amount"), (-5, "invalid_amount")):
        status, _, body, _ = c.call("POST", "/api/payments", ALICE, {**payment, "amount": amount})
        expect(status == 422 and body["code"] == code, f"amount {amount}: {status} {body}")
    status, _, body, _ = c.call("POST", "/api/payments", ALICE, {**payment, "payeeId": "payee-bob-1"})
    expect(status == 404 and body["code"] == "payee_not_found", "unknown payee")
    expect(c.call("POST", "/api/payments", ALICE, {**payment, "fromAccountId": "201"})[0] == 404, "bob's account")
    expect(c.call("POST", "/api/payments", ALICE, b"{nope")[0] == 400, "bad JSON")
    _, _, balance, _ = c.get("/api/accounts/101/balance", ALICE)
    expect(balance["balance"] == 2399.75, "failed payments changed nothing")
    _, _, payments, _ = c.get("/api/payments", ALICE)
    expect([p["id"] for p in payments] == ["pay-alice-2", "pay-alice-1"], f"payment list {payments}")
    _, _, result, _ = c.gql('{ account(id: "101") { balance transactions(first: 1) { description } } }')
    expect(result["data"]["account"]["balance"] == 2399.75, "REST payment visible through GraphQL")
    expect(result["data"]["account"]["transactions"][0]["description"] == "Payment to Electricity Co - rent", "tx")


@check
def payees_cards_and_profile_edits(c: Client):
    status, _, body, _ = c.call("POST", "/api/payees", ALICE, {"name": "Gym", "bsb": "012-003",
                                                               "accountNumber": "555"})
    expect(status == 201 and body["id"] == "payee-alice-4", f"new payee {body}")
    expect(c.call("POST", "/api/payees", ALICE, {"name": "Gym"})[0] == 400, "payee missing fields")
    expect(len(c.get("/api/payees", ALICE)[2]) == 4, "payee listed")
    expect(c.call("DELETE", "/api/cards/card-alice-1", ALICE)[0] == 204, "card deleted")
    expect(c.call("DELETE", "/api/cards/card-alice-1", ALICE)[0] == 404, "card already gone")
    _, response, profile, _ = c.get("/api/profile", ALICE)
    last_modified = response.getheader("Last-Modified")
    expect(c.get("/api/profile", ALICE, {"If-Modified-Since": last_modified})[0] == 304, "If-Modified-Since 304")
    status, _, profile, _ = c.call("PATCH", "/api/profile", ALICE, {"phone": "+61 1"})
    expect(status == 200 and profile["phone"] == "+61 1" and profile["email"] == "alice@example.com", "PATCH")
    expect(c.get("/api/profile", ALICE, {"If-Modified-Since": last_modified})[0] == 200, "edit is newer")
    expect(c.call("PUT", "/api/profile", ALICE, {"displayName": "A"})[0] == 400, "PUT needs email")
    expect(c.call("PATCH", "/api/profile", ALICE, {"email": "no-at"})[0] == 400, "email validated")
    _, _, result, _ = c.gql("{ profile { phone } }")
    expect(result["data"]["profile"]["phone"] == "+61 1", "profile edit visible through GraphQL")


@check
def headers_of_offers_notifications_and_flags(c: Client):
    _, response, offers, _ = c.get("/api/offers", ALICE, {"Accept-Language": "fr-FR,fr;q=0.9"})
    expect(offers[0]["title"] == "Intérêts bonus" and response.getheader("Vary") == "Accept-Language", "fr offers")
    expect(c.get("/api/offers", ALICE)[2][0]["title"] == "Bonus interest", "en offers")
    expect(c.get("/api/notifications", ALICE)[1].getheader("Cache-Control") == "no-store", "no-store")
    status, response, flags, _ = c.get("/api/feature-flags")
    expect(status == 200 and response.getheader("Cache-Control") == "public, max-age=300", "public flags")
    expect(c.get("/api/feature-flags", headers={"If-None-Match": response.getheader("ETag")})[0] == 304, "flags 304")
    for path in ("/api/cards", "/api/scheduled-payments", "/api/statements?accountId=101"):
        status, _, body, _ = c.get(path, BOB if path == "/api/cards" else ALICE)
        expect(status == 200 and body, f"{path} {status}")
    expect(c.get("/api/statements?accountId=201", ALICE)[0] == 404, "statements of another user's account")


@check
def utility_routes(c: Client):
    status, response, echo, _ = c.call("PUT", "/api/echo?a=1&a=2&set_header=X-Test:yes&status=201", body=b"\xff\x00",
                                       headers={"X-Multi": "1"})
    expect(status == 201 and response.getheader("X-Test") == "yes", "echo status and header")
    expect(echo["method"] == "PUT" and echo["query"]["a"] == ["1", "2"] and echo["bodyBase64"] == "/wA=", "echo")
    expect(echo["headers"]["x-multi"] == "1" and echo["bodyLength"] == 2, "echo headers")
    status, response, _, _ = c.get("/api/redirect?n=2&to=/api/echo")
    expect(status == 302 and response.getheader("Location").startswith(c.prefix + "/api/redirect?n=1"), "redirect")
    _, response, _, _ = c.get("/api/cookies/set?name=session&value=abc")
    expect(response.getheader("Set-Cookie") == "session=abc; Path=/", "Set-Cookie")
    expect(c.get("/api/cookies", headers={"Cookie": "a=1; b=2"})[2] == {"cookies": {"a": "1", "b": "2"}}, "cookies")
    status, _, _, raw = c.get("/api/bytes?n=1000")
    expect(status == 200 and len(raw) == 1000 and raw[:3] == b"\x00\x01\x02", "bytes")
    expect(c.get("/api/status/503")[0] == 503 and c.get("/api/status/204")[0] == 204, "status route")


# GraphQL ---------------------------------------------------------------------------------

@check
def graphql_reads_and_errors(c: Client):
    status, _, result, _ = c.gql("query AccountSummary { me { id accounts { id type } } }")
    expect(status == 200 and result["data"]["me"]["accounts"][1]["type"] == "SAVINGS", f"me {result}")
    status, _, result, _ = c.gql('{ flaky account(id: "201") { id } accounts { id } }')
    expect(status == 200 and result["data"]["flaky"] is None and result["data"]["account"] is None, "partial")
    expect({e["path"][0] for e in result["errors"]} == {"flaky", "account"}, "errors with paths")
    expect(result["data"]["accounts"], "partial data kept")
    expect(c.gql("{ accounts { id }", ALICE)[0] == 400, "syntax error is 400")
    expect(c.gql("{ nope }")[0] == 400, "validation error is 400")
    expect(c.call("POST", "/graphql", ALICE, b"{not json")[0] == 400, "bad JSON is 400")
    expect(c.gql("{ me { id } }", token=None)[0] == 401, "no token is 401")
    status, _, result, _ = c.gql('{ node(id: "card-alice-2") { __typename id } search(term: "bob") '
                                 "{ __typename ... on Payee { name } } }")
    expect(result["data"]["node"]["__typename"] == "Card", "node")
    expect(result["data"]["search"] == [{"__typename": "Payee", "name": "Bob Smith"}], "search")
    status, _, result, _ = c.get("/graphql?query=%7B%20me%20%7B%20id%20%7D%20%7D", ALICE)
    expect(status == 200 and result["data"]["me"]["id"] == "alice", "GET query")


@check
def graphql_automatic_persisted_queries(c: Client):
    import hashlib
    from urllib.parse import quote
    query = "query Me { me { id } }"
    digest = hashlib.sha256(query.encode()).hexdigest()
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    status, _, result, _ = c.call("POST", "/graphql", ALICE, {"operationName": "Me", "extensions": persisted})
    expect(status == 200 and result["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND", f"{result}")
    status, _, result, _ = c.call("POST", "/graphql", ALICE, {"query": query, "extensions": persisted})
    expect(status == 200 and result["data"]["me"]["id"] == "alice", f"registered {result}")
    path = "/graphql?operationName=Me&extensions=" + quote(json.dumps(persisted))
    status, _, result, _ = c.get(path, ALICE)
    expect(status == 200 and result["data"]["me"]["id"] == "alice", f"GET by hash {result}")
    wrong = {"persistedQuery": {"version": 1, "sha256Hash": "0" * 64}}
    expect(c.call("POST", "/graphql", ALICE, {"query": query, "extensions": wrong})[0] == 400, "mismatch is 400")
    counts = c.control("GET", "apq")["counts"]
    expect(counts == {"notFound": 1, "registered": 1, "hashOnly": 1, "mismatch": 1}, f"counts {counts}")
    c.control("POST", "apq", {"mode": "unsupported"})
    status, _, result, _ = c.call("POST", "/graphql", ALICE, {"query": query, "extensions": persisted})
    expect(result["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_SUPPORTED", f"unsupported {result}")
    c.control("POST", "apq", {"mode": "on", "forget": True})
    expect(c.control("GET", "apq")["hashes"] == 0, "forget drops the hashes")


@check
def graphql_cache_hints(c: Client):
    status, response, result, _ = c.gql("{ exchangeRates { currency rate } }")
    expect(status == 200 and len(result["data"]["exchangeRates"]) == 3, f"rates {result}")
    expect(response.getheader("Cache-Control") == "max-age=60, public", "rates Cache-Control")
    hints = result["extensions"]["cacheControl"]
    expect(hints["version"] == 1 and hints["hints"][0] == {"path": ["exchangeRates"], "maxAge": 300}, f"{hints}")
    expect({"path": ["exchangeRates", 2, "rate"], "maxAge": 60} in hints["hints"], f"per-path {hints}")
    _, response, result, _ = c.gql("{ creditScore { id score } exchangeRates { currency } }", BOB)
    expect(result["data"]["creditScore"] == {"id": "cs-bob", "score": 655}, f"bob's score {result}")
    expect(response.getheader("Cache-Control") == "max-age=30, private", "private Cache-Control")
    _, response, result, _ = c.gql("{ creditScore { id } profile { id } }")
    expect(response.getheader("Cache-Control") is None, "no header unless every root field has a hint")
    expect(len(result["extensions"]["cacheControl"]["hints"]) == 1, f"hints {result}")
    _, response, result, _ = c.gql("{ oneTimeCode }")
    expect(response.getheader("Cache-Control") == "no-store", "no-store")
    _, response, result, _ = c.gql("{ profile { id } }")
    expect("extensions" not in result and response.getheader("Cache-Control") is None, "unhinted unchanged")
    c.control("POST", "cache-hints", {"cacheControl": {"version": 1, "hints": "bad"}, "header": "max-age=x"})
    _, response, result, _ = c.gql("{ profile { id } }")
    expect(result["extensions"]["cacheControl"]["hints"] == "bad", f"override {result}")
    expect(response.getheader("Cache-Control") == "max-age=x", "override header")
    c.control("DELETE", "cache-hints")
    _, response, result, _ = c.gql("{ profile { id } }")
    expect("extensions" not in result, "override ended")


@check
def graphql_mutations_are_visible_through_rest(c: Client):
    mutation = ("mutation Pay($input: PaymentInput!) { makePayment(input: $input) "
                "{ account { id balance } transaction { id amount } } }")
    variables = {"input": {"fromAccountId": "102", "payeeId": "payee-alice-2", "amount": 50}}
    _, _, result, _ = c.gql(mutation, variables=variables)
    expect(result["data"]["makePayment"]["account"]["balance"] == 9950.0, f"mutation {result}")
    expect(c.get("/api/accounts/102/balance", ALICE)[2]["balance"] == 9950.0, "visible through REST")
    variables["input"]["amount"] = 1e9
    _, _, result, _ = c.gql(mutation, variables=variables)
    expect(result["data"] is None and result["errors"][0]["extensions"]["code"] == "INSUFFICIENT_FUNDS", "funds")
    _, _, result, _ = c.gql('mutation { deleteCard(id: "card-alice-2") { id deleted } }')
    expect(result["data"]["deleteCard"] == {"id": "card-alice-2", "deleted": True}, "deleteCard")
    expect(len(c.get("/api/cards", ALICE)[2]) == 2, "card gone from REST")


@check
def bench_user_has_a_hundred_accounts(c: Client):
    query = "{ accounts { id transactions(first: 20) { id amount } } }"
    _, _, result, _ = c.gql(query, token=BENCH)
    accounts = result["data"]["accounts"]
    expect(len(accounts) == 100 and all(len(a["transactions"]) == 20 for a in accounts), "bench data")


# Tenants and control ----------------------------------------------------------------------

@check
def tenants_are_isolated(c: Client):
    other = Client(c.port, c.prefix[3:] + "-other")
    c.call("POST", "/api/payments", ALICE, {"fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 1})
    expect(c.get("/api/accounts/101", ALICE)[2]["balance"] == 2499.0, "paid in this tenant")
    expect(other.get("/api/accounts/101", ALICE)[2]["balance"] == 2500.0, "other tenant untouched")
    expect(other.control("GET", "counters")["requests"] == 1, "other tenant's own counters")
    other.close()
    plain = Client(c.port)
    expect(plain.get("/t/bad!name/api/echo")[0] == 400, "invalid tenant rejected")
    plain.close()


@check
def counters_count_routes_operations_statuses_and_connections(c: Client):
    c.get("/api/accounts", ALICE)
    c.get("/api/accounts/101/balance", ALICE)
    c.gql("query AccountSummary { accounts { id } }")
    c.gql("{ me { id } }")
    c.gql("query A { me { id } } query B { cards { id } }", operation="B")
    c.get("/api/accounts")
    second = Client(c.port, c.prefix[3:])
    second.get("/api/feature-flags")
    second.close()
    counters = c.control("GET", "counters")
    expect(counters["requests"] == 7, f"requests {counters}")
    expect(counters["routes"] == {"GET /api/accounts": 2, "GET /api/accounts/101/balance": 1, "POST /graphql": 3,
                                  "GET /api/feature-flags": 1}, f"routes {counters['routes']}")
    expect(counters["operations"] == {"AccountSummary": 1, "<anonymous>": 1, "B": 1}, "operations")
    expect(counters["statuses"] == {"200": 6, "401": 1}, f"statuses {counters['statuses']}")
    expect(counters["connections"] == 2, f"connections {counters['connections']}")
    expect(counters["callers"]["GET /api/accounts"] == {"token-alice": 1, "none": 1}, f"callers {counters['callers']}")
    expect(counters["callers"]["op:AccountSummary"] == {"token-alice": 1}, "callers per operation")
    c.control("POST", "reset?counters=only")
    expect(c.control("GET", "counters")["requests"] == 0, "counters reset")


@check
def counters_keep_the_traceparents_that_arrived(c: Client):
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    c.call("GET", "/api/accounts", ALICE, headers={"traceparent": traceparent})
    c.get("/api/accounts", ALICE)
    kept = c.control("GET", "counters")["traceparents"]
    expect(kept == [{"route": "GET /api/accounts", "traceparent": traceparent}], f"traceparents {kept}")


@check
def reset_restores_the_seed(c: Client):
    c.call("POST", "/api/payments", ALICE, {"fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 5})
    c.control("POST", "faults", {"route": "GET /api/cards", "fault": {"type": "status", "status": 500}})
    c.control("POST", "reset")
    expect(c.get("/api/accounts/101", ALICE)[2]["balance"] == 2500.0, "balance back to seed")
    expect(c.get("/api/cards", ALICE)[0] == 200 and c.control("GET", "faults") == [], "faults cleared")


@check
def latency_applies_to_matching_requests_only(c: Client):
    c.control("POST", "latency", {"ms": 200, "route": "GET /api/accounts*"})
    started = time.monotonic()
    c.get("/api/accounts/101/balance", ALICE)
    expect(time.monotonic() - started >= 0.19, "matching request delayed")
    started = time.monotonic()
    c.get("/api/cards", ALICE)
    unmatched = time.monotonic() - started
    c.control("POST", "latency", {"ms": 0})
    expect(unmatched < 0.19 and c.control("GET", "latency") == [], "other routes not delayed; cleared")


@check
def revalidation_answers_304_with_new_caching_headers(c: Client):
    path = "/api/revalidation?etag=v1&max_age=30&then_etag=v2&then_max_age=120&then_expires_in=600"
    status, response, body, _ = c.get(path)
    expect(status == 200 and body == {"etag": "v1"}, f"first answer {status} {body}")
    expect(response.getheader("Cache-Control") == "private, max-age=30" and response.getheader("ETag") == '"v1"',
           "first caching headers")
    expect(response.getheader("Expires") is None, "no Expires unless asked")
    for tag in ('"v1"', 'W/"v2"'):
        status, response, _, raw = c.get(path, headers={"If-None-Match": tag})
        expect(status == 304 and raw == b"", f"304 for {tag}")
        expect(response.getheader("Cache-Control") == "private, max-age=120", "the 304's own max-age")
        expect(response.getheader("ETag") == '"v2"', "the 304's own ETag")
        expires = parsedate_to_datetime(response.getheader("Expires")).timestamp()
        expect(590 <= expires - time.time() <= 610, f"Expires about ten minutes ahead: {expires - time.time()}")
    expect(c.get(path, headers={"If-None-Match": '"v0"'})[0] == 200, "another ETag gets the full answer")
    expect(c.get("/api/revalidation?max_age=x")[0] == 400, "bad seconds rejected")


def start_slow_read(c: Client, path: str):
    """GETs `path` as alice on a connection and thread of its own; returns once the server has counted the request.
    The answer lands in the returned list when it comes."""
    slow = Client(c.port, c.prefix[len("/t/"):])
    answers = []
    reader = threading.Thread(target=lambda: answers.append(slow.get(path, ALICE)))
    reader.start()
    deadline = time.monotonic() + 5
    while c.control("GET", "counters")["routes"].get(f"GET {path}", 0) < 1:
        expect(time.monotonic() < deadline, f"the slow read of {path} arrived")
        time.sleep(0.01)
    return slow, reader, answers


@check
def answer_first_latency_sends_the_state_at_arrival(c: Client):
    c.control("POST", "latency", {"ms": 400, "route": "GET /api/accounts/101/balance", "answerFirst": True})
    expect(c.control("GET", "latency")[0]["answerFirst"] is True, "rule listed with answerFirst")
    slow, reader, answers = start_slow_read(c, "/api/accounts/101/balance")
    time.sleep(0.05)  # the slow read has computed its answer (it does so on arrival, before waiting)
    payment = {"fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 100}
    started = time.monotonic()
    expect(c.call("POST", "/api/payments", ALICE, payment)[0] == 201, "payment while the read waits")
    expect(time.monotonic() - started < 0.3, "other routes are not delayed")
    reader.join(timeout=5)
    slow.close()
    expect(answers and answers[0][2]["balance"] == 2500.0, f"the slow answer predates the payment: {answers}")
    expect(c.get("/api/accounts/101/balance", ALICE)[2]["balance"] == 2400.0, "a later read sees the payment")
    status, _, body, _ = c.call("POST", "/__control/latency", body={"ms": 1, "answerFirst": "yes"})
    expect(status == 400 and body["code"] == "invalid_rule", "answerFirst must be a boolean")


@check
def held_latency_waits_for_the_release(c: Client):
    c.control("POST", "latency", {"ms": 5000, "route": "GET /api/accounts/101/balance", "held": True})
    expect(c.control("GET", "latency")[0]["held"] is True, "rule listed as held")
    started = time.monotonic()
    slow, reader, answers = start_slow_read(c, "/api/accounts/101/balance")
    time.sleep(0.2)
    expect(not answers, "still held")
    c.control("POST", "release")
    reader.join(timeout=5)
    slow.close()
    expect(answers and answers[0][0] == 200, f"answered once released: {answers}")
    expect(time.monotonic() - started < 4, "released before its 5 s cap")
    expect(c.control("GET", "latency") == [], "the release removed the held rule")
    c.control("POST", "latency", {"ms": 300, "route": "GET /api/cards", "held": True})
    started = time.monotonic()
    expect(c.get("/api/cards", ALICE)[0] == 200 and time.monotonic() - started >= 0.29, "never released: the cap")
    status, _, body, _ = c.call("POST", "/__control/latency", body={"ms": 1, "held": "yes"})
    expect(status == 400 and body["code"] == "invalid_rule", "held must be a boolean")


@check
def status_malformed_and_operation_faults(c: Client):
    c.control("POST", "faults", {"route": "GET /api/cards", "count": 2,
                                 "fault": {"type": "status", "status": 503, "body": {"x": 1}}})
    first, second = c.get("/api/cards", ALICE), c.get("/api/cards", ALICE)
    expect(first[0] == 503 and first[2] == {"x": 1} and second[0] == 503, "503 twice with the given body")
    expect(c.get("/api/cards", ALICE)[0] == 200, "fault used up")
    c.control("POST", "faults", {"route": "/api/payees", "fault": {"type": "malformed"}})
    status, _, _, raw = c.call("GET", "/api/payees", ALICE, parse=False)
    expect(status == 200, "malformed answers 200")
    try:
        json.loads(raw)
        expect(False, "malformed body parsed as JSON")
    except json.JSONDecodeError:
        pass
    c.control("POST", "faults", {"operation": "Summary", "fault": {"type": "status", "status": 502}})
    expect(c.gql("query Other { me { id } }")[0] == 200, "other operation not faulted")
    expect(c.gql("query Summary { me { id } }")[0] == 502, "operation faulted")


@check
def connection_faults(c: Client):
    port, prefix = c.port, c.prefix
    request = (f"GET {prefix}/api/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer token-alice\r\n\r\n").encode()
    c.control("POST", "faults", {"route": "GET /api/accounts", "fault": {"type": "drop"}})
    expect(raw_exchange(port, request) == (b"", None), "drop closes without bytes")
    c.control("POST", "faults", {"route": "GET /api/accounts", "fault": {"type": "reset"}})
    data, error = raw_exchange(port, request)
    expect(data == b"" and error == "reset", f"reset gives RST ({error})")
    c.control("POST", "faults", {"route": "GET /api/accounts", "fault": {"type": "truncate"}})
    data, _ = raw_exchange(port, request)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
    expect(0 < len(body) < length, f"truncated body {len(body)} of {length}")
    c.control("POST", "faults", {"route": "GET /api/accounts", "fault": {"type": "oversize-chunked", "bytes": 70000}})
    status, response, _, raw = c.get("/api/accounts", ALICE)
    expect(len(raw) == 70000 and response.getheader("Transfer-Encoding") == "chunked", "oversize-chunked")
    c.control("POST", "faults", {"route": "GET /api/accounts", "fault": {"type": "oversize", "bytes": 5000}})
    expect(len(c.get("/api/accounts", ALICE)[3]) == 5000, "oversize")
    c.control("POST", "faults", {"route": "GET /api/accounts",
                                 "fault": {"type": "drip", "bytes": 6, "interval_ms": 50, "chunk": 2}})
    started = time.monotonic()
    raw = c.get("/api/accounts", ALICE)[3]
    expect(len(raw) == 6 and time.monotonic() - started >= 0.14, "drip is slow and complete")
    counters = c.control("GET", "counters")
    expect(counters["routes"]["GET /api/accounts"] == 6 and "200" in counters["statuses"], "faulted are counted")
    bad = c.call("POST", "/__control/faults", body={"fault": {"type": "explode"}})
    expect(bad[0] == 400 and bad[2]["code"] == "invalid_rule", "unknown fault type rejected")


@check
def drop_reused_fault(c: Client):
    """drop-reused spares a connection's first request and drops a later one after reading its body."""
    port, prefix = c.port, c.prefix

    def post(close: bool) -> bytes:
        return (f"POST {prefix}/api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                + ("Connection: close\r\n" if close else "") + "\r\nhi").encode()

    c.control("POST", "faults", {"route": "POST /api/echo", "fault": {"type": "drop-reused"}})
    data, _ = raw_exchange(port, post(close=True))
    expect(data.startswith(b"HTTP/1.1 200"), "a connection's first request is answered")
    expect(len(c.control("GET", "faults")) == 1, "and leaves the drop-reused rule in place")
    data, error = raw_exchange(port, post(close=False) + post(close=False))
    expect(data.count(b"HTTP/1.1 ") == 1 and error is None, "the second request on the connection gets no answer")
    expect(c.control("GET", "faults") == [], "the rule is used up")
    counters = c.control("GET", "counters")
    expect(counters["routes"]["POST /api/echo"] == 3 and counters["statuses"] == {"200": 2},
           "the dropped request was read and counted, and sent no status")


# Runner ----------------------------------------------------------------------------------

def start_server():
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py"), "--port", "0",
                                "--exit-on-stdin-eof"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().rstrip("\n")
    found = READY.match(line)
    if not found or found.group(1) != found.group(2):
        process.kill()
        raise SystemExit(f"bad ready line: {line!r}")
    return process, int(found.group(1))


def stop_server(process) -> list:
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=5)
    elapsed = time.monotonic() - started
    process.stdin.close()
    process.stdout.close()
    return [] if code == 0 and elapsed < 1.0 else [f"SIGTERM: exit {code} after {elapsed:.2f}s"]


def main() -> int:
    process, port = start_server()
    failures = []
    try:
        for function in CHECKS:
            client = Client(port, f"check-{function.__name__[:40]}-{uuid.uuid4().hex[:8]}")
            try:
                function(client)
                print(f"ok    {function.__name__}")
            except Exception as error:  # report every failing check, not only the first
                failures.append(function.__name__)
                print(f"FAIL  {function.__name__}: {type(error).__name__}: {error}")
            finally:
                client.close()
    finally:
        shutdown = stop_server(process)
    for problem in shutdown:
        print(f"FAIL  shutdown: {problem}")
    failed = len(failures) + len(shutdown)
    print(f"{len(CHECKS) + 1 - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
