import { format } from "@cfworker/json-schema";

/**
 * The two formats rjsf's own widgets produce, checked as @rjsf/validator-ajv8 checks
 * them (its `createAjvInstance`): a colour (`color`, the colour picker) and a file read
 * as a data URL (`data-url`, the file widget). cfworker's format table is shared, so
 * adding them here adds them for every validation.
 */
const COLOR =
  /^(#?([0-9A-Fa-f]{3}){1,2}\b|aqua|black|blue|fuchsia|gray|green|lime|maroon|navy|olive|orange|purple|red|silver|teal|white|yellow|(rgb\(\s*\b([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\b\s*,\s*\b([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\b\s*,\s*\b([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\b\s*\))|(rgb\(\s*(\d?\d%|100%)+\s*,\s*(\d?\d%|100%)+\s*,\s*(\d?\d%|100%)+\s*\)))$/;
const DATA_URL = /^data:([a-z]+\/[a-z0-9-+.]+)?;(?:name=(.*);)?base64,(.*)$/;

format["color"] ??= (s) => COLOR.test(s);
format["data-url"] ??= (s) => DATA_URL.test(s);
