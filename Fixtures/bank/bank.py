"""The bank state of one tenant and the operations REST and GraphQL share.

Callers hold the tenant's state lock around every call: these classes do no locking of
their own. A failed operation raises ``BankError`` before changing anything, so a rejected
payment or edit never leaves half-applied state behind.
"""

import math
import time
from datetime import datetime, timezone
from typing import Optional

import data
from models import Card, Payee, Payment, Transaction, User


class BankError(Exception):
    """A business error with an HTTP status and a stable snake_case code.

    ``extensions`` is picked up by graphql-core, so GraphQL errors carry the same code
    (upper-cased) as the REST error body.
    """

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    @property
    def extensions(self) -> dict:
        return {"code": self.code.upper()}


def not_found(what: str) -> BankError:
    return BankError(404, f"{what}_not_found", f"{what} not found")


def invalid(message: str) -> BankError:
    return BankError(400, "invalid_request", message)


def amount_to_cents(amount) -> int:
    """Validates a JSON amount (a number, not a bool) and converts it to cents."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not math.isfinite(amount):
        raise invalid("amount must be a number")
    return round(amount * 100)


class UserBank:
    """Everything one user owns, indexed by id; lists are kept newest first where order matters."""

    def __init__(self, user_id: str):
        _, _, rows, card_count, payee_count = data.person(user_id)
        self.user = User(user_id)
        self.profile = data.profile(user_id)
        self.profile_modified = data.PROFILE_SEED_TIME
        owned = data.accounts(rows)
        self.accounts = {a.id: a for a in owned}
        self.accounts_by_token = {a.accountToken: a for a in owned}
        self.transactions = {a.id: data.transactions(a, i) for i, a in enumerate(owned)}
        self.payees = {p.id: p for p in data.payees(user_id, payee_count)}
        first = owned[0]
        payment = data.seed_payment(user_id, first, self.transactions[first.id], self.payees[f"payee-{user_id}-1"])
        self.payments = {payment.id: payment}
        self.tx_index = {t.id: t for items in self.transactions.values() for t in items}
        self.next_tx = {a.id: data.TRANSACTIONS_PER_ACCOUNT + 1 for a in owned}
        self.cards = {c.id: c for c in data.cards(user_id, owned, card_count)}
        self.scheduled = {s.id: s for s in data.scheduled_payments(user_id, first)}
        self.statements = {s.id: s for s in data.statements(owned)}
        self.offers = {o.id: o for o in data.offers(user_id)}
        self.notifications = {n.id: n for n in data.notifications(user_id)}
        self.next_payee = payee_count + 1
        self.next_payment = 2

    # Reads -----------------------------------------------------------------------------

    def account(self, account_id: str):
        account = self.accounts.get(account_id)
        if account is None:
            raise not_found("account")
        return account

    def account_by_token(self, token: str):
        account = self.accounts_by_token.get(token)
        if account is None:
            raise not_found("account")
        return account

    def transaction_page(self, account_id: str, page: int, page_size: int) -> dict:
        items = self.transactions[self.account(account_id).id]
        start = (page - 1) * page_size
        chunk = items[start:start + page_size]
        more = start + page_size < len(items)
        return {"items": [t.to_json() for t in chunk], "page": page, "pageSize": page_size,
                "total": len(items), "nextPage": page + 1 if more else None}

    def transactions_after(self, account_id: str, first: int, after: Optional[str]) -> list:
        """Cursor pagination for GraphQL: ``after`` is the id of the last transaction seen."""
        if first < 0:
            raise invalid("first must not be negative")
        items = self.transactions[self.account(account_id).id]
        start = 0
        if after is not None:
            ids = [t.id for t in items]
            if after not in ids:
                raise BankError(400, "invalid_cursor", "invalid cursor")
            start = ids.index(after) + 1
        return items[start:start + first]

    def statements_for(self, account_id: Optional[str]) -> list:
        if account_id is None:
            return list(self.statements.values())
        self.account(account_id)
        return [s for s in self.statements.values() if s.accountId == account_id]

    def payment_list(self) -> list:
        return list(reversed(self.payments.values()))

    def find_node(self, node_id: str):
        """Any object of this user with that id, or None; the user id resolves to the User."""
        for table in (self.accounts, self.tx_index, self.cards, self.payees, self.scheduled, self.statements,
                      self.offers, self.notifications, self.payments):
            if node_id in table:
                return table[node_id]
        return self.user if node_id == self.user.id else None

    def search(self, term: str) -> list:
        needle = term.casefold()
        if not needle:
            return []
        found = [a for a in self.accounts.values() if needle in a.name.casefold()]
        found += [p for p in self.payees.values() if needle in p.name.casefold()]
        found += [t for t in self.tx_index.values() if needle in t.description.casefold()]
        return found

    # Writes ----------------------------------------------------------------------------

    def make_payment(self, from_account_id: str, payee_id: str, amount_cents: int, reference: Optional[str]):
        """Moves money out of an account; returns (account, transaction)."""
        if amount_cents <= 0:
            raise BankError(422, "invalid_amount", "amount must be greater than zero")
        account = self.account(from_account_id)
        payee = self.payees.get(payee_id)
        if payee is None:
            raise not_found("payee")
        if amount_cents > account.availableCents:
            raise BankError(422, "insufficient_funds", "insufficient funds")
        account.balanceCents -= amount_cents
        account.availableCents -= amount_cents
        number = self.next_tx[account.id]
        self.next_tx[account.id] = number + 1
        description = f"Payment to {payee.name}" + (f" - {reference}" if reference else "")
        date = data.iso(datetime.now(timezone.utc))
        tx = Transaction(f"tx-{account.id}-{number}", account.id, -amount_cents, description, date, "POSTED")
        self.transactions[account.id].insert(0, tx)
        self.tx_index[tx.id] = tx
        payment = Payment(f"pay-{self.user.id}-{self.next_payment}", account.id, payee.id, amount_cents,
                          reference, date, tx.id)
        self.next_payment += 1
        self.payments[payment.id] = payment
        return account, tx

    def add_payee(self, name, bsb, account_number) -> Payee:
        fields = {"name": name, "bsb": bsb, "accountNumber": account_number}
        missing = [k for k, v in fields.items() if not isinstance(v, str) or not v.strip()]
        if missing:
            raise invalid("missing or empty fields: " + ", ".join(missing))
        payee = Payee(f"payee-{self.user.id}-{self.next_payee}", name, bsb, account_number)
        self.next_payee += 1
        self.payees[payee.id] = payee
        return payee

    def delete_card(self, card_id: str) -> Card:
        card = self.cards.pop(card_id, None)
        if card is None:
            raise not_found("card")
        return card

    def update_profile(self, changes: dict, replace: bool):
        """Applies a PUT (``replace``: displayName and email required) or a PATCH to the profile."""
        allowed = {"displayName", "email", "phone"}
        unknown = sorted(set(changes) - allowed - {"id"})
        if unknown:
            raise invalid("unknown fields: " + ", ".join(unknown))
        changes = {k: v for k, v in changes.items() if k in allowed}
        if replace:
            missing = [k for k in ("displayName", "email") if k not in changes]
            if missing:
                raise invalid("missing fields: " + ", ".join(missing))
            changes.setdefault("phone", None)
        for key in ("displayName", "email"):
            if key in changes and (not isinstance(changes[key], str) or not changes[key].strip()):
                raise invalid(f"{key} must be a non-empty string")
        if "email" in changes and "@" not in changes["email"]:
            raise invalid("email must contain @")
        if "phone" in changes and changes["phone"] is not None and not isinstance(changes["phone"], str):
            raise invalid("phone must be a string or null")
        if any(getattr(self.profile, k) != v for k, v in changes.items()):
            for key, value in changes.items():
                setattr(self.profile, key, value)
            # Strictly later than the previous value, so If-Modified-Since never hides an edit.
            self.profile_modified = max(int(time.time()), self.profile_modified + 1)
        return self.profile


class Bank:
    """One tenant's bank: global feature flags plus per-user state, seeded on first use."""

    def __init__(self):
        self.flags = data.feature_flags()
        self._users = {}

    def user(self, user_id: str) -> UserBank:
        state = self._users.get(user_id)
        if state is None:
            state = self._users[user_id] = UserBank(user_id)
        return state
