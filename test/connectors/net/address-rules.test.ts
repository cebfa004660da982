import { describe, expect, it } from "vitest";
import { refusedAddress } from "../../../src/connectors/net/address-rules.ts";
import { hostPatterns } from "../../../src/connectors/net/host-patterns.ts";

describe("connector address rules", () => {
  it("always refuses link-local, metadata, unspecified, multicast, broadcast and reserved addresses, even with allowPrivateNetwork", () => {
    const cases: [string, string][] = [
      ["169.254.169.254", "a cloud metadata address"],
      ["100.100.100.200", "a cloud metadata address"],
      ["fd00:ec2::254", "a cloud metadata address"],
      ["169.254.1.1", "a link-local address"],
      ["fe80::1", "a link-local address"],
      ["0.0.0.0", "an unspecified address"],
      ["::", "an unspecified address"],
      ["224.0.0.1", "a multicast address"],
      ["ff02::1", "a multicast address"],
      ["255.255.255.255", "a broadcast address"],
      ["240.0.0.1", "a reserved address"],
      ["192.0.2.10", "a reserved address"],
      ["2001:db8::1", "a reserved address"],
    ];
    for (const [address, rule] of cases) {
      expect(refusedAddress(address, true), address).toBe(rule);
      expect(refusedAddress(address, false), address).toBe(rule);
    }
  });

  it("refuses loopback, private, carrier-grade NAT and unique-local addresses unless allowPrivateNetwork", () => {
    const cases: [string, string][] = [
      ["127.0.0.1", "a loopback address"],
      ["127.8.9.10", "a loopback address"],
      ["::1", "a loopback address"],
      ["10.1.2.3", "a private address"],
      ["172.16.0.1", "a private address"],
      ["172.31.255.255", "a private address"],
      ["192.168.1.1", "a private address"],
      ["100.64.0.1", "a carrier-grade NAT address"],
      ["fc00::1", "a private address"],
      ["fd12:3456::1", "a private address"],
    ];
    for (const [address, rule] of cases) {
      expect(refusedAddress(address, false), address).toBe(`${rule}, allowed only with allowPrivateNetwork`);
      expect(refusedAddress(address, true), address).toBeUndefined();
    }
  });

  it("judges an IPv6 address that embeds an IPv4 one (mapped, NAT64, 6to4) by the IPv4 address's rules", () => {
    expect(refusedAddress("::ffff:127.0.0.1", false)).toBe(
      "a loopback address (IPv4-mapped 127.0.0.1), allowed only with allowPrivateNetwork",
    );
    expect(refusedAddress("::ffff:7f00:1", true)).toBeUndefined();
    expect(refusedAddress("::ffff:169.254.169.254", true)).toBe(
      "a cloud metadata address (IPv4-mapped 169.254.169.254)",
    );
    expect(refusedAddress("64:ff9b::a9fe:a9fe", true)).toBe("a cloud metadata address (NAT64 169.254.169.254)");
    expect(refusedAddress("2002:0a00:0001::1", false)).toBe(
      "a private address (6to4 10.0.0.1), allowed only with allowPrivateNetwork",
    );
    expect(refusedAddress("::ffff:8.8.8.8", false)).toBeUndefined();
  });

  it("allows public unicast addresses and refuses text that is no address", () => {
    expect(refusedAddress("8.8.8.8", false)).toBeUndefined();
    expect(refusedAddress("172.32.0.1", false)).toBeUndefined();
    expect(refusedAddress("2606:4700::1111", false)).toBeUndefined();
    expect(refusedAddress("example.com", true)).toBe("not an IP address");
  });
});

describe("connector host patterns", () => {
  it("matches exact names case-insensitively, with or without a trailing dot", () => {
    const hosts = hostPatterns(["API.Example.com"]);
    expect(hosts.allows("api.example.com")).toBe(true);
    expect(hosts.allows("api.example.com.")).toBe(true);
    expect(hosts.allows("example.com")).toBe(false);
    expect(hosts.allows("api.example.com.evil.test")).toBe(false);
  });

  it("matches *.domain on any subdomain depth but never the apex or a look-alike suffix", () => {
    const hosts = hostPatterns(["*.example.com"]);
    expect(hosts.allows("a.example.com")).toBe(true);
    expect(hosts.allows("a.b.example.com")).toBe(true);
    expect(hosts.allows("example.com")).toBe(false);
    expect(hosts.allows("badexample.com")).toBe(false);
  });

  it("compares IP literals as addresses, not as text", () => {
    const hosts = hostPatterns(["[0:0::1]", "127.1", "[::ffff:127.0.0.2]"]);
    expect(hosts.allows("[::1]")).toBe(true);
    expect(hosts.allows("127.0.0.1")).toBe(true);
    expect(hosts.allows("[::ffff:7f00:2]")).toBe(true);
    expect(hosts.allows("127.0.0.2")).toBe(false);
  });
});
