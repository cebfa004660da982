import type { BuildOptions } from "esbuild";

/** The dashboard's sources, relative to the package root. */
export const DASHBOARD_SRC: string;
/** Where the bundle goes, relative to the package root. */
export const DASHBOARD_OUT: string;
/** Where the build writes ajv's standalone validator of the draft 2020-12 meta-schema, relative to the package root. */
export const META_VALIDATOR: string;
/** Writes {@link META_VALIDATOR} under `root` (ajv's meta-schema compiled to plain code: no eval in the page). */
export function writeMetaValidator(root: string): void;
/** Whether the bundle is missing under `root`. */
export function dashboardMissing(root: string): boolean;
/** esbuild, as the package at `root` has it. */
export function esbuildAt(root: string): typeof import("esbuild");
/** The bundle's esbuild options. */
export function bundleOptions(root: string, options?: { quiet?: boolean }): BuildOptions & { metafile: true };
/** Bundles the dashboard into dist/dashboard/ (index.html and hashed assets). */
export function buildDashboard(root: string, options?: { quiet?: boolean }): void;
