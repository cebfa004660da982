import ipaddr from "ipaddr.js";

/**
 * The address rules of connector network access (docs/connectors.md §6): which resolved or
 * literal addresses a connector's `fetch` may connect to. Each refusal names its rule.
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One rule: CIDR ranges, the rule's wording, and whether `allowPrivateNetwork` lifts it. */
interface Rule {
  ranges: readonly (readonly [Address, number])[];
  says: string;
  private: boolean;
}

function cidrs(...texts: string[]): [Address, number][] {
  return texts.map((text) => ipaddr.parseCIDR(text));
}

// Order matters: a metadata address sits inside a wider range (link-local, CGNAT, ULA) and is named first.
const IPV4_RULES: readonly Rule[] = [
  { ranges: cidrs("169.254.169.254/32", "100.100.100.200/32"), says: "a cloud metadata address", private: false },
  { ranges: cidrs("0.0.0.0/8"), says: "an unspecified address", private: false },
  { ranges: cidrs("169.254.0.0/16"), says: "a link-local address", private: false },
  { ranges: cidrs("224.0.0.0/4"), says: "a multicast address", private: false },
  { ranges: cidrs("255.255.255.255/32"), says: "a broadcast address", private: false },
  {
    ranges: cidrs(
      "240.0.0.0/4",
      "192.0.0.0/24",
      "192.0.2.0/24",
      "192.88.99.0/24",
      "198.18.0.0/15",
      "198.51.100.0/24",
      "203.0.113.0/24",
    ),
    says: "a reserved address",
    private: false,
  },
  { ranges: cidrs("127.0.0.0/8"), says: "a loopback address", private: true },
  { ranges: cidrs("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"), says: "a private address", private: true },
  { ranges: cidrs("100.64.0.0/10"), says: "a carrier-grade NAT address", private: true },
];

const IPV6_RULES: readonly Rule[] = [
  { ranges: cidrs("fd00:ec2::254/128"), says: "a cloud metadata address", private: false },
  { ranges: cidrs("::/128"), says: "an unspecified address", private: false },
  { ranges: cidrs("fe80::/10"), says: "a link-local address", private: false },
  { ranges: cidrs("ff00::/8"), says: "a multicast address", private: false },
  { ranges: cidrs("100::/64", "2001:db8::/32", "3fff::/20"), says: "a reserved address", private: false },
  { ranges: cidrs("2001::/32"), says: "a Teredo address (its IPv4 address cannot be checked)", private: false },
  { ranges: cidrs("::1/128"), says: "a loopback address", private: true },
  { ranges: cidrs("fc00::/7", "fec0::/10"), says: "a private address", private: true },
  { ranges: cidrs("64:ff9b:1::/48"), says: "a local-use NAT64 address", private: true },
];

/** IPv6 forms that carry an IPv4 address, which the IPv4 rules then judge. */
const EMBEDDING: readonly { range: [Address, number]; form: string; at: number }[] = [
  { range: ipaddr.parseCIDR("::ffff:0:0/96"), form: "IPv4-mapped", at: 12 },
  { range: ipaddr.parseCIDR("::ffff:0:0:0/96"), form: "IPv4-translated", at: 12 },
  { range: ipaddr.parseCIDR("64:ff9b::/96"), form: "NAT64", at: 12 },
  { range: ipaddr.parseCIDR("::/96"), form: "IPv4-compatible", at: 12 },
  { range: ipaddr.parseCIDR("2002::/16"), form: "6to4", at: 2 },
];

/** The first rule `address` falls under, if any. */
function ruleOf(address: Address, rules: readonly Rule[]): Rule | undefined {
  return rules.find((rule) =>
    rule.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits)),
  );
}

/** The refusal's wording, or undefined when `allowPrivate` lifts the rule. */
function verdict(rule: Rule, allowPrivate: boolean, form = ""): string | undefined {
  if (!rule.private) return `${rule.says}${form}`;
  return allowPrivate ? undefined : `${rule.says}${form}, allowed only with allowPrivateNetwork`;
}

/** The IPv4 address an IPv6 one embeds, with the form's name, if it is such a form. */
function embedded(address: ipaddr.IPv6): { ipv4: ipaddr.IPv4; form: string } | undefined {
  for (const { range, form, at } of EMBEDDING) {
    if (!address.match(range)) continue;
    const bytes = address.toByteArray().slice(at, at + 4);
    return { ipv4: new ipaddr.IPv4(bytes), form };
  }
  return undefined;
}

/** Parses an IP literal as an address (IPv6 with or without brackets), or undefined when it is none. */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (!bare.includes(":") || !ipaddr.IPv6.isValid(bare)) return undefined;
  return ipaddr.IPv6.parse(bare);
}

/**
 * Why `address` may not be connected to, as the rule's wording ("a cloud metadata address",
 * "a loopback address (IPv4-mapped 127.0.0.1), allowed only with allowPrivateNetwork"), or undefined when it may.
 * Loopback,
 * private, carrier-grade NAT and unique-local addresses are allowed with `allowPrivate`;
 * the rest never. Text that is no address is refused.
 */
export function refusedAddress(text: string, allowPrivate: boolean): string | undefined {
  const address = parseAddress(text);
  if (!address) return "not an IP address";
  if (address.kind() === "ipv4") {
    const rule = ruleOf(address, IPV4_RULES);
    return rule && verdict(rule, allowPrivate);
  }
  const ipv6 = address as ipaddr.IPv6;
  const own = ruleOf(ipv6, IPV6_RULES);
  if (own) return verdict(own, allowPrivate);
  const inner = embedded(ipv6);
  const rule = inner && ruleOf(inner.ipv4, IPV4_RULES);
  return rule && verdict(rule, allowPrivate, ` (${inner.form} ${inner.ipv4.toString()})`);
}
