"""The electrical rules: each looks at a circuit and names what would break, where, and the
fix. ``check`` runs them all; a finding with ``refuse`` set is one the configuration check
refuses."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from table.circuit.boards import GPIO_TOTAL_MA
from table.circuit.model import Circuit, Finding, Net, Part, Pin, PinKind

DRIVERS = (PinKind.OUT, PinKind.TRISTATE)
Rule = Callable[[Circuit], Iterator[Finding]]


def _where(net: Net) -> str:
    return net.where or net.name


def _name(part: Part, pin: Pin) -> str:
    return f"{part.ref} {pin.name}"


def _driven_inputs(c: Circuit) -> Iterator[tuple[Net, Part, Pin, Part, Pin]]:
    """Every (net, driving part and pin, input part and pin) of the circuit."""
    for net in c.nets:
        ends = list(c.ends(net))
        for dp, d in ((p, q) for p, q in ends if q.kind in DRIVERS):
            for ip, i in ((p, q) for p, q in ends if q.kind is PinKind.IN):
                yield net, dp, d, ip, i


def too_high(c: Circuit) -> Iterator[Finding]:
    """An output driving above what an input on its net takes (5 V into a 3.3 V input)."""
    for net, dp, d, ip, i in _driven_inputs(c):
        if d.volts > i.vmax:
            yield Finding("5V-into-3V3", _where(net),
                          f"{_name(dp, d)} drives {d.volts:g} V into {_name(ip, i)} "
                          f"({ip.value}), which takes {i.vmax:g} V at most",
                          "a level shifter powered at the input's voltage (a 74LVC245 at "
                          "3.3 V) between them")


def too_low(c: Circuit) -> Iterator[Finding]:
    """An output whose high is below what an input on its net reads as high (3.3 V into a
    5 V CMOS input)."""
    for net, dp, d, ip, i in _driven_inputs(c):
        if d.voh < i.vih:
            yield Finding("3V3-into-5V", _where(net),
                          f"{_name(dp, d)} gives {d.voh:g} V high at worst, below the "
                          f"{i.vih:g} V that {_name(ip, i)} ({ip.value}) reads as high",
                          "a buffer with TTL-level inputs powered at 5 V (a 74AHCT125)")


def two_drivers(c: Circuit) -> Iterator[Finding]:
    """A net with two outputs that may drive it at once."""
    for net in c.nets:
        drivers = [(p, q) for p, q in c.ends(net) if q.kind in DRIVERS]
        always = [d for d in drivers if d[1].kind is PinKind.OUT]
        if always and len(drivers) > 1:
            names = ", ".join(_name(p, q) for p, q in drivers)
            yield Finding("two-drivers", _where(net), f"{names} all drive this net",
                          "one output a net: give each its own pin")


def shared_miso(c: Circuit) -> Iterator[Finding]:
    """A bus shared by tri-state outputs, one of which may hold it (an MFRC522 module's MISO)."""
    for net in c.nets:
        drivers = [(p, q) for p, q in c.ends(net) if q.kind is PinKind.TRISTATE]
        holding = [_name(p, q) for p, q in drivers if q.holds]
        if len(drivers) > 1 and holding:
            yield Finding("shared-miso", _where(net),
                          f"{', '.join(holding)} share it with no tri-state path of their own "
                          "(a module that holds MISO silences the others)",
                          'one 74LVC1G125 a reader enabled by its select line (board.miso = '
                          '"buffer"), or a Schottky diode a reader, anode at the module, '
                          'cathode to the bus, with 1 kohm to ground on the bus (board.miso = '
                          '"diode")')


def _loads(c: Circuit, source: PinKind, load: PinKind
           ) -> Iterator[tuple[Net, Part, Pin, float]]:
    """Every pin of kind ``source`` with the current its net's ``load`` pins draw."""
    for net in c.nets:
        ends = list(c.ends(net))
        for sp, s in ((p, q) for p, q in ends if q.kind is source):
            yield net, sp, s, sum(q.draw_ma for _, q in ends if q.kind is load)


def rails(c: Circuit) -> Iterator[Finding]:
    """A rail asked for more than its source gives."""
    for net, sp, s, load in _loads(c, PinKind.POWER_OUT, PinKind.POWER_IN):
        if load > s.source_ma:
            yield Finding("rail", _where(net),
                          f"{load:.0f} mA asked of {_name(sp, s)} ({sp.value}), which gives "
                          f"{s.source_ma:g} mA ({s.note or sp.source})",
                          "a regulator of its own for the readers (an AMS1117-3.3 on 5 V), "
                          "or fewer readers on this rail")


def pin_current(c: Circuit) -> Iterator[Finding]:
    """An output asked for more current than it gives (an LED or a buzzer on a pin); the Pi's
    GPIO together above their total."""
    total = 0.0
    for net, dp, d, load in _loads(c, PinKind.OUT, PinKind.IN):
        if dp.ref == "J1":
            total += load
        if load > d.source_ma:
            yield Finding("pin-current", _where(net),
                          f"{load:.0f} mA asked of {_name(dp, d)}, which gives "
                          f"{d.source_ma:g} mA", "a transistor to switch the load (an NPN "
                          "with 1 kohm on its base), or a larger series resistor")
    if total > GPIO_TOTAL_MA:
        yield Finding("pin-current", "controls", f"{total:.0f} mA from the Pi's GPIO together, "
                      f"above their {GPIO_TOTAL_MA} mA", "transistors for the loads")


def pin_twice(c: Circuit) -> Iterator[Finding]:
    """A pin on two nets (a GPIO used twice)."""
    seen: dict[tuple[str, str], Net] = {}
    for net in c.nets:
        for end in net.ends:
            if end in seen and seen[end] is not net:
                first = seen[end]
                yield Finding("pin-twice", _where(net),
                              f"{end[0]} {end[1]} is already {_where(first)}",
                              f"a pin used once: move one to a free pin: {_free(c, end[0])}")
            seen.setdefault(end, net)


def _free(c: Circuit, ref: str) -> str:
    """The GPIO of part ``ref`` on no net and held by nothing, as a fix names them."""
    used = {pin for net in c.nets for r, pin in net.ends if r == ref}
    free = [p.name.removeprefix("GPIO") for p in c.part(ref).pins if p.name.startswith("GPIO")
            and p.name not in used and (ref, p.name) not in c.held]
    return "BCM " + ", ".join(free) if free else "none (drop a control)"


def pin_held(c: Circuit) -> Iterator[Finding]:
    """A pin used by something other than the overlay that holds it."""
    for net in c.nets:
        for end in net.ends:
            holder = c.held.get(end)
            if holder and not (net.owner and holder.startswith(net.owner)):
                bcm = end[1].removeprefix("GPIO")
                yield Finding("pin-held", _where(net), f"BCM {bcm} is held by {holder}",
                              f"move it to a free pin: {_free(c, end[0])}")


def button_pull(c: Circuit) -> Iterator[Finding]:
    """A button whose net nothing pulls to a level: it reads noise while it is up."""
    for net in c.nets:
        ends = list(c.ends(net))
        if not any(p.value.startswith("button") and q.kind is PinKind.PASSIVE for p, q in ends):
            continue
        pulled = any(q.pull for _, q in ends) or any(
            p.value.endswith("ohm") and q.name == "2" for p, q in ends)
        if not pulled:
            yield Finding("button-pull", _where(net), "a button with nothing to pull its pin up",
                          "the pin's internal pull-up (gpiozero's Button does it) or 10 kohm "
                          "to 3.3 V")


RULES: tuple[Rule, ...] = (too_high, too_low, two_drivers, shared_miso, rails, pin_current,
                           pin_twice, pin_held, button_pull)


def check(c: Circuit) -> list[Finding]:
    """Every finding of every rule, in the rules' order."""
    return [f for rule in RULES for f in rule(c)]
