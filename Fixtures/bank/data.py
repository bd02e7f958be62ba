"""Deterministic seed data: users, tokens, and everything each user owns.

Every tenant starts from exactly this data (see README.md for the full table). A user's
data is built on first use, so a tenant that never sees the bench user never pays for its
100 accounts.
"""

from datetime import datetime, timedelta, timezone

from models import (Account, Card, FeatureFlag, Notification, Offer, Payee, Payment, Profile, ScheduledPayment,
                    Statement, Transaction)

TOKENS = {
    "token-alice": "alice",
    "token-bob": "bob",
    "token-carol": "carol",
    "token-bench": "bench",
    # A second access token per user, as after an OAuth refresh: the same user, a new credential.
    "token-alice-refreshed": "alice",
    "token-bob-refreshed": "bob",
}

TRANSACTIONS_PER_ACCOUNT = 25
PROFILE_SEED_TIME = int(datetime(2024, 6, 1, tzinfo=timezone.utc).timestamp())
_NEWEST_TRANSACTION = datetime(2024, 6, 30, 9, 30, tzinfo=timezone.utc)
_DESCRIPTIONS = ("Coffee Shop", "Supermarket", "Salary", "Electricity Bill", "Online Store",
                 "Restaurant", "Fuel Station", "Transfer", "Pharmacy", "Bookshop")
_PAYEES = (("Electricity Co", "062-000", "12345678"), ("Bob Smith", "063-111", "22334455"),
           ("Landlord Pty Ltd", "082-222", "99887766"))
_PEOPLE = {
    # user: (display name, phone, [(account id, type, name, balance cents, available cents)], cards, payees)
    "alice": ("Alice Nguyen", "+61 400 000 101",
              [("101", "CHECKING", "Everyday Account", 250000, 245000),
               ("102", "SAVINGS", "Goal Saver", 1000000, 1000000)], 3, 3),
    "bob": ("Bob Smith", "+61 400 000 201",
            [("201", "CHECKING", "Everyday Account", 120050, 120050),
             ("202", "CREDIT", "Low Rate Card", -35025, 464975)], 2, 2),
    "carol": ("Carol Jones", None, [("301", "CHECKING", "Everyday Account", 7500, 7500)], 2, 2),
}
_BENCH_TYPES = ("CHECKING", "SAVINGS", "CREDIT")
_OFFERS = (
    ({"en": "Bonus interest", "fr": "Intérêts bonus"},
     {"en": "Earn 5.00% p.a. for 4 months", "fr": "Gagnez 5,00 % par an pendant 4 mois"}),
    ({"en": "Travel card", "fr": "Carte de voyage"},
     {"en": "No foreign transaction fees", "fr": "Aucuns frais de transaction à l'étranger"}),
)
_NOTIFICATIONS = (("Your statement is ready", False), ("New device signed in", True), ("Payment received", False))
SEED_PAYMENT_CENTS = 12000
SEED_PAYMENT_TX = 5


def iso(moment: datetime) -> str:
    """ISO-8601 in UTC with a trailing ``Z``, the format of every date in the fixture."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def feature_flags() -> list:
    return [FeatureFlag("newDashboard", True), FeatureFlag("graphqlPayments", False),
            FeatureFlag("darkMode", True), FeatureFlag("instantPayments", True)]


def person(user_id: str):
    """(display name, phone, account rows, card count, payee count) of a known user."""
    if user_id in _PEOPLE:
        return _PEOPLE[user_id]
    accounts = []
    for n in range(1, 101):
        balance = 100000 + n * 1234
        kind = _BENCH_TYPES[(n - 1) % 3]
        if kind == "CREDIT":
            accounts.append((f"b{n:03d}", kind, f"Bench Credit {n}", -balance // 10, 500000 - balance // 10))
        else:
            accounts.append((f"b{n:03d}", kind, f"Bench Account {n}", balance, balance))
    return ("Bench User", "+61 400 000 999", accounts, 2, 3)


def accounts(rows) -> list:
    return [Account(id=a, accountToken=f"atok-{a}", name=name, type=kind, balanceCents=bal, availableCents=avail)
            for a, kind, name, bal, avail in rows]


def transactions(account: Account, index: int) -> list:
    """Twenty-five transactions, newest first: ``tx-<account>-1`` is the newest."""
    items = []
    for n in range(1, TRANSACTIONS_PER_ACCOUNT + 1):
        description = _DESCRIPTIONS[(n + index) % len(_DESCRIPTIONS)]
        cents = 320000 if description == "Salary" else -((n * 713 + index * 97) % 15000 + 100)
        status = "PENDING" if n == 1 and account.type == "CHECKING" else "POSTED"
        date = iso(_NEWEST_TRANSACTION - timedelta(days=n - 1, hours=n % 7))
        items.append(Transaction(f"tx-{account.id}-{n}", account.id, cents, description, date, status))
    return items


def cards(user_id: str, owned: list, count: int) -> list:
    result = []
    for n in range(1, count + 1):
        account = owned[(n - 1) % len(owned)]
        status = "BLOCKED" if n == 3 else "ACTIVE"
        result.append(Card(f"card-{user_id}-{n}", f"{4000 + n * 111 + len(user_id)}"[-4:], status, account.id))
    return result


def payees(user_id: str, count: int) -> list:
    return [Payee(f"payee-{user_id}-{n}", *_PAYEES[n - 1]) for n in range(1, count + 1)]


def scheduled_payments(user_id: str, first_account: Account) -> list:
    return [ScheduledPayment(f"sp-{user_id}-1", first_account.id, f"payee-{user_id}-1", 12000, "2024-07-15"),
            ScheduledPayment(f"sp-{user_id}-2", first_account.id, f"payee-{user_id}-2", 5000, "2024-07-01")]


def statements(owned: list) -> list:
    return [Statement(f"st-{a.id}-{p}", a.id, p, f"https://statements.bank.test/st-{a.id}-{p}.pdf")
            for a in owned for p in ("2024-06", "2024-05", "2024-04")]


def offers(user_id: str) -> list:
    return [Offer(f"offer-{user_id}-{n}", dict(t), dict(d)) for n, (t, d) in enumerate(_OFFERS, start=1)]


def notifications(user_id: str) -> list:
    return [Notification(f"notif-{user_id}-{n}", title, read)
            for n, (title, read) in enumerate(_NOTIFICATIONS, start=1)]


def seed_payment(user_id: str, first_account: Account, account_transactions: list, payee: Payee) -> Payment:
    """One historical payment; it rewrites transaction 5 of the first account to match it."""
    tx = account_transactions[SEED_PAYMENT_TX - 1]
    tx.amountCents = -SEED_PAYMENT_CENTS
    tx.description = f"Payment to {payee.name} - Monthly bill"
    return Payment(f"pay-{user_id}-1", first_account.id, payee.id, SEED_PAYMENT_CENTS, "Monthly bill", tx.date, tx.id)


def profile(user_id: str) -> Profile:
    name, phone = person(user_id)[:2]
    return Profile(user_id, name, f"{user_id}@example.com", phone)
