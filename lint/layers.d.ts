import type { LayerRow } from './layering';

export declare const layers: Record<string, LayerRow>;
export declare function layeringTable(): string;
