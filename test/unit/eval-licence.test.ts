/**
 * The evaluation cases copy other repositories' text only under a licence that allows it
 * (docs/evaluation.md): the builder's licence reader must not take a restrictive licence for a
 * permissive one, nor the other way round when licences name one another.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script of the bench, without types.
import { spdxOf } from '../../bench/eval-make-case.mjs';

const APACHE = 'Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/\n\nTERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION';
const GPL3 = 'GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n...\n13. Use with the GNU Affero General Public License.\nNotwithstanding any other provision of this License, you have permission to link or combine any covered work with a work licensed under version 3 of the GNU Affero General Public License';
const AGPL3 = 'GNU AFFERO GENERAL PUBLIC LICENSE\nVersion 3, 19 November 2007\n...\n13. Remote Network Interaction; Use with the GNU General Public License.';
const MPL2 = 'Mozilla Public License Version 2.0\n==================================\n1.12. "Secondary License"\nmeans either the GNU General Public License, Version 2.0, the GNU Lesser General Public License, Version 2.1, the GNU Affero General Public License, Version 3.0, or any later versions of those licenses.';
const MIT = 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software, to deal in the Software without restriction, ...\n\nThe above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.';

describe('spdxOf (bench/eval-make-case.mjs)', () => {
  it('reads the licence a file is titled with, even when its text names others', () => {
    expect(spdxOf(GPL3)).toBe('GPL-3.0');
    expect(spdxOf(AGPL3)).toBe('AGPL-3.0');
    expect(spdxOf(MPL2)).toBe('MPL-2.0');
    expect(spdxOf(APACHE)).toBe('Apache-2.0');
    expect(spdxOf(MIT)).toBe('MIT');
  });

  it('never reads Apache with the Commons Clause, BUSL or PolyForm as a permissive licence', () => {
    expect(spdxOf(`"Commons Clause" License Condition v1.0\n\nThe Software is provided to you by the Licensor under the License, as defined below...\n\n${APACHE}`)).toBe('LicenseRef-Commons-Clause');
    expect(spdxOf(`Business Source License 1.1\n\nParameters\n\n${APACHE}`)).toBe('BUSL-1.1');
    expect(spdxOf('PolyForm Noncommercial License 1.0.0')).toBe('LicenseRef-PolyForm');
    expect(spdxOf('All rights reserved.')).toBeNull();
  });
});
