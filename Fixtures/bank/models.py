"""Domain objects of the fixture bank.

Attribute names are the wire names (camelCase) so that REST serialisation and the GraphQL
default field resolver read the same attributes. Money is held in integer cents and exposed
as floats rounded to two decimals, so repeated payments never accumulate float error.
Each class carries a name-mangled ``__typename`` that graphql-core uses to resolve the
``Node`` interface and the ``SearchResult`` union.
"""

from dataclasses import dataclass
from typing import Optional


def cents_to_amount(cents: int) -> float:
    """Converts integer cents to the JSON amount (a float with at most two decimals)."""
    return round(cents / 100, 2)


class JSONView:
    """Mixin: ``to_json`` returns the public fields listed in ``JSON_FIELDS``."""

    __slots__ = ()
    JSON_FIELDS: tuple = ()

    def to_json(self) -> dict:
        return {name: getattr(self, name) for name in self.JSON_FIELDS}


@dataclass(slots=True)
class Account(JSONView):
    __typename = "Account"
    JSON_FIELDS = ("id", "accountToken", "name", "type", "balance", "availableBalance", "currency")

    id: str
    accountToken: str
    name: str
    type: str
    balanceCents: int
    availableCents: int
    currency: str = "AUD"

    @property
    def balance(self) -> float:
        return cents_to_amount(self.balanceCents)

    @property
    def availableBalance(self) -> float:
        return cents_to_amount(self.availableCents)

    def balance_json(self) -> dict:
        """The body of ``GET /api/accounts/{id}/balance``."""
        return {
            "accountId": self.id,
            "accountToken": self.accountToken,
            "balance": self.balance,
            "availableBalance": self.availableBalance,
            "currency": self.currency,
        }


@dataclass(slots=True)
class Transaction(JSONView):
    __typename = "Transaction"
    JSON_FIELDS = ("id", "accountId", "amount", "description", "date", "status")

    id: str
    accountId: str
    amountCents: int
    description: str
    date: str
    status: str

    @property
    def amount(self) -> float:
        return cents_to_amount(self.amountCents)


@dataclass(slots=True)
class Card(JSONView):
    __typename = "Card"
    JSON_FIELDS = ("id", "last4", "status", "accountId")

    id: str
    last4: str
    status: str
    accountId: str


@dataclass(slots=True)
class Payee(JSONView):
    __typename = "Payee"
    JSON_FIELDS = ("id", "name", "bsb", "accountNumber")

    id: str
    name: str
    bsb: str
    accountNumber: str


@dataclass(slots=True)
class ScheduledPayment(JSONView):
    __typename = "ScheduledPayment"
    JSON_FIELDS = ("id", "fromAccountId", "payeeId", "amount", "nextDate")

    id: str
    fromAccountId: str
    payeeId: str
    amountCents: int
    nextDate: str

    @property
    def amount(self) -> float:
        return cents_to_amount(self.amountCents)


@dataclass(slots=True)
class Profile(JSONView):
    __typename = "Profile"
    JSON_FIELDS = ("id", "displayName", "email", "phone")

    id: str
    displayName: str
    email: str
    phone: Optional[str]


@dataclass(slots=True)
class Statement(JSONView):
    __typename = "Statement"
    JSON_FIELDS = ("id", "accountId", "period", "url")

    id: str
    accountId: str
    period: str
    url: str


@dataclass(slots=True)
class Offer:
    """An offer whose title and description exist in English and French."""

    __typename = "Offer"

    id: str
    titles: dict
    descriptions: dict

    def to_json(self, language: str = "en") -> dict:
        return {"id": self.id, "title": self.titles[language], "description": self.descriptions[language]}


@dataclass(slots=True)
class Notification(JSONView):
    __typename = "Notification"
    JSON_FIELDS = ("id", "title", "read")

    id: str
    title: str
    read: bool


@dataclass(slots=True)
class Payment(JSONView):
    __typename = "Payment"
    JSON_FIELDS = ("id", "fromAccountId", "payeeId", "amount", "reference", "date", "transactionId")

    id: str
    fromAccountId: str
    payeeId: str
    amountCents: int
    reference: Optional[str]
    date: str
    transactionId: str

    @property
    def amount(self) -> float:
        return cents_to_amount(self.amountCents)


@dataclass(slots=True)
class FeatureFlag(JSONView):
    __typename = "FeatureFlag"
    JSON_FIELDS = ("name", "enabled")

    name: str
    enabled: bool


@dataclass(slots=True)
class User:
    """The GraphQL ``User``; its profile and accounts are resolved from the user's state."""

    __typename = "User"

    id: str
