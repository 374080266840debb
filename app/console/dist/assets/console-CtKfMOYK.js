import{A as rt,R as Ln,s as Pt,c as xn,e as rn,f as Mn,a as qn,K as Bn,g as Un}from"./keystore-BIuRHH42.js";var st,L,sn,Se,Nt,on,an,ut,je,xe,ln,kt,gt,bt,cn,Ze={},Qe=[],On=/acit|ex(?:s|g|n|p|$)|rph|grid|ows|mnc|ntw|ine[ch]|zoo|^ord|itera/i,ot=Array.isArray;function fe(t,n){for(var r in n)t[r]=n[r];return t}function Ct(t){t&&t.parentNode&&t.parentNode.removeChild(t)}function Kn(t,n,r){var s,o,a,l={};for(a in n)a=="key"?s=n[a]:a=="ref"?o=n[a]:l[a]=n[a];if(arguments.length>2&&(l.children=arguments.length>3?st.call(arguments,2):r),typeof t=="function"&&t.defaultProps!=null)for(a in t.defaultProps)l[a]===void 0&&(l[a]=t.defaultProps[a]);return Ge(t,l,s,o,null)}function Ge(t,n,r,s,o){var a={type:t,props:n,key:r,ref:s,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:o??++sn,__i:-1,__u:0};return o==null&&L.vnode!=null&&L.vnode(a),a}function w(t){return t.children}function We(t,n){this.props=t,this.context=n}function Ce(t,n){if(n==null)return t.__?Ce(t.__,t.__i+1):null;for(var r;n<t.__k.length;n++)if((r=t.__k[n])!=null&&r.__e!=null)return r.__e;return typeof t.type=="function"?Ce(t):null}function Vn(t){if(t.__P&&t.__d){var n=t.__v,r=n.__e,s=[],o=[],a=fe({},n);a.__v=n.__v+1,L.vnode&&L.vnode(a),At(t.__P,a,n,t.__n,t.__P.namespaceURI,32&n.__u?[r]:null,s,r??Ce(n),!!(32&n.__u),o),a.__v=n.__v,a.__.__k[a.__i]=a,mn(s,a,o),n.__e=n.__=null,a.__e!=r&&dn(a)}}function dn(t){if((t=t.__)!=null&&t.__c!=null)return t.__e=t.__c.base=null,t.__k.some(function(n){if(n!=null&&n.__e!=null)return t.__e=t.__c.base=n.__e}),dn(t)}function _t(t){(!t.__d&&(t.__d=!0)&&Se.push(t)&&!Ye.__r++||Nt!=L.debounceRendering)&&((Nt=L.debounceRendering)||on)(Ye)}function Ye(){try{for(var t,n=1;Se.length;)Se.length>n&&Se.sort(an),t=Se.shift(),n=Se.length,Vn(t)}finally{Se.length=Ye.__r=0}}function un(t,n,r,s,o,a,l,i,d,c,h){var m,u,f,_,y,b,S=s&&s.__k||Qe,g=n.length;for(d=Fn(r,n,S,d,g),m=0;m<g;m++)(f=r.__k[m])!=null&&(u=f.__i!=-1&&S[f.__i]||Ze,f.__i=m,b=At(t,f,u,o,a,l,i,d,c,h),_=f.__e,f.ref&&u.ref!=f.ref&&(u.ref&&$t(u.ref,null,f),h.push(f.ref,f.__c||_,f)),y==null&&_!=null&&(y=_),4&f.__u?(d=pn(f,d,t),u.__e&&(u.__e=null)):typeof f.type=="function"&&b!==void 0?d=b:_&&(d=_.nextSibling),f.__u&=-7);return r.__e=y,d}function Fn(t,n,r,s,o){var a,l,i,d,c,h=r.length,m=h,u=0;for(t.__k=new Array(o),a=0;a<o;a++)(l=n[a])!=null&&typeof l!="boolean"&&typeof l!="function"?(typeof l=="string"||typeof l=="number"||typeof l=="bigint"||l.constructor==String?l=t.__k[a]=Ge(null,l,null,null,null):ot(l)?l=t.__k[a]=Ge(w,{children:l},null,null,null):l.constructor===void 0&&l.__b>0?l=t.__k[a]=Ge(l.type,l.props,l.key,l.ref?l.ref:null,l.__v):t.__k[a]=l,d=a+u,l.__=t,l.__b=t.__b+1,i=null,(c=l.__i=Hn(l,r,d,m))!=-1&&(m--,(i=r[c])&&(i.__u|=2)),i==null||i.__v==null?(c==-1&&(o>h?u--:o<h&&u++),typeof l.type!="function"&&(l.__u|=4)):c!=d&&(c==d-1?u--:c==d+1?u++:(c>d?u--:u++,l.__u|=4))):t.__k[a]=null;if(m)for(a=0;a<h;a++)(i=r[a])!=null&&(2&i.__u)==0&&(i.__e==s&&(s=Ce(i)),gn(i,i));return s}function pn(t,n,r){var s,o;if(typeof t.type=="function"){for(s=t.__k,o=0;s&&o<s.length;o++)s[o]&&(s[o].__=t,n=pn(s[o],n,r));return n}t.__e!=n&&(n&&t.type&&!n.parentNode&&(n=Ce(t)),n=r.insertBefore(t.__e,n||null));do n=n&&n.nextSibling;while(n!=null&&n.nodeType==8);return n}function Hn(t,n,r,s){var o,a,l,i=t.key,d=t.type,c=n[r],h=c!=null&&(2&c.__u)==0;if(c===null&&i==null||h&&i==c.key&&d==c.type)return r;if(s>(h?1:0)){for(o=r-1,a=r+1;o>=0||a<n.length;)if((c=n[l=o>=0?o--:a++])!=null&&(2&c.__u)==0&&i==c.key&&d==c.type)return l}return-1}function Lt(t,n,r){n[0]=="-"?t.setProperty(n,r??""):t[n]=r==null?"":typeof r!="number"||On.test(n)?r:r+"px"}function He(t,n,r,s,o){var a,l;e:if(n=="style")if(typeof r=="string")t.style.cssText=r;else{if(typeof s=="string"&&(t.style.cssText=s=""),s)for(n in s)r&&n in r||Lt(t.style,n,"");if(r)for(n in r)s&&r[n]==s[n]||Lt(t.style,n,r[n])}else if(n[0]=="o"&&n[1]=="n")a=n!=(n=n.replace(ln,"$1")),l=n.toLowerCase(),n=l in t||n=="onFocusOut"||n=="onFocusIn"?l.slice(2):n.slice(2),t.l||(t.l={}),t.l[n+a]=r,r?s?r[xe]=s[xe]:(r[xe]=kt,t.addEventListener(n,a?bt:gt,a)):t.removeEventListener(n,a?bt:gt,a);else{if(o=="http://www.w3.org/2000/svg")n=n.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(n!="width"&&n!="height"&&n!="href"&&n!="list"&&n!="form"&&n!="tabIndex"&&n!="download"&&n!="rowSpan"&&n!="colSpan"&&n!="role"&&n!="popover"&&n in t)try{t[n]=r??"";break e}catch{}typeof r=="function"||(r==null||r===!1&&n[4]!="-"?t.removeAttribute(n):t.setAttribute(n,n=="popover"&&r==1?"":r))}}function xt(t){return function(n){if(this.l){var r=this.l[n.type+t];if(n[je]==null)n[je]=kt++;else if(n[je]<r[xe])return;return r(L.event?L.event(n):n)}}}function At(t,n,r,s,o,a,l,i,d,c){var h,m,u,f,_,y,b,S,g,v,k,A,M,W,O,P,D=n.type;if(n.constructor!==void 0)return null;128&r.__u&&(d=!!(32&r.__u),a=[i=n.__e=r.__e]),(h=L.__b)&&h(n);e:if(typeof D=="function"){m=l.length;try{if(g=n.props,v=D.prototype&&D.prototype.render,k=(h=D.contextType)&&s[h.__c],A=h?k?k.props.value:h.__:s,r.__c?S=(u=n.__c=r.__c).__=u.__E:(v?n.__c=u=new D(g,A):(n.__c=u=new We(g,A),u.constructor=D,u.render=Gn),k&&k.sub(u),u.state||(u.state={}),u.__n=s,f=u.__d=!0,u.__h=[],u._sb=[]),v&&u.__s==null&&(u.__s=u.state),v&&D.getDerivedStateFromProps!=null&&(u.__s==u.state&&(u.__s=fe({},u.__s)),fe(u.__s,D.getDerivedStateFromProps(g,u.__s))),_=u.props,y=u.state,u.__v=n,f)v&&D.getDerivedStateFromProps==null&&u.componentWillMount!=null&&u.componentWillMount(),v&&u.componentDidMount!=null&&u.__h.push(u.componentDidMount);else{if(v&&D.getDerivedStateFromProps==null&&g!==_&&u.componentWillReceiveProps!=null&&u.componentWillReceiveProps(g,A),n.__v==r.__v||!u.__e&&u.shouldComponentUpdate!=null&&u.shouldComponentUpdate(g,u.__s,A)===!1){n.__v!=r.__v&&(u.props=g,u.state=u.__s,u.__d=!1),n.__e=r.__e,n.__k=r.__k,n.__k.some(function(V){V&&(V.__=n)}),Qe.push.apply(u.__h,u._sb),u._sb=[],u.__h.length&&l.push(u),i=Ce(r);break e}u.componentWillUpdate!=null&&u.componentWillUpdate(g,u.__s,A),v&&u.componentDidUpdate!=null&&u.__h.push(function(){u.componentDidUpdate(_,y,b)})}if(u.context=A,u.props=g,u.__P=t,u.__e=!1,M=L.__r,W=0,v)u.state=u.__s,u.__d=!1,M&&M(n),h=u.render(u.props,u.state,u.context),Qe.push.apply(u.__h,u._sb),u._sb=[];else do u.__d=!1,M&&M(n),h=u.render(u.props,u.state,u.context),u.state=u.__s;while(u.__d&&++W<25);u.state=u.__s,u.getChildContext!=null&&(s=fe(fe({},s),u.getChildContext())),v&&!f&&u.getSnapshotBeforeUpdate!=null&&(b=u.getSnapshotBeforeUpdate(_,y)),O=h!=null&&h.type===w&&h.key==null?fn(h.props.children):h,i=un(t,ot(O)?O:[O],n,r,s,o,a,l,i,d,c),u.base=n.__e,n.__u&=-161,u.__h.length&&l.push(u),S&&(u.__E=u.__=null)}catch(V){if(l.length=m,n.__v=null,d||a!=null){if(V.then){for(n.__u|=d?160:128;i&&i.nodeType==8&&i.nextSibling;)i=i.nextSibling;a!=null&&(a[a.indexOf(i)]=null),n.__e=i}else if(a!=null)for(P=a.length;P--;)Ct(a[P])}else n.__e=r.__e;n.__k==null&&(n.__k=r.__k||[]),V.then||hn(n),L.__e(V,n,r)}}else a==null&&n.__v==r.__v?(n.__k=r.__k,n.__e=r.__e):i=n.__e=jn(r.__e,n,r,s,o,a,l,d,c);return(h=L.diffed)&&h(n),128&n.__u?void 0:i}function hn(t){t&&(t.__c&&(t.__c.__e=!0),t.__k&&t.__k.some(hn))}function mn(t,n,r){for(var s=0;s<r.length;s++)$t(r[s],r[++s],r[++s]);L.__c&&L.__c(n,t),t.some(function(o){try{t=o.__h,o.__h=[],t.some(function(a){a.call(o)})}catch(a){L.__e(a,o.__v)}})}function fn(t){return typeof t!="object"||t==null||t.__b>0?t:ot(t)?t.map(fn):t.constructor!==void 0?null:fe({},t)}function jn(t,n,r,s,o,a,l,i,d){var c,h,m,u,f,_,y,b=r.props||Ze,S=n.props,g=n.type;if(g=="svg"?o="http://www.w3.org/2000/svg":g=="math"?o="http://www.w3.org/1998/Math/MathML":o||(o="http://www.w3.org/1999/xhtml"),a!=null){for(c=0;c<a.length;c++)if((f=a[c])&&"setAttribute"in f==!!g&&(g?f.localName==g:f.nodeType==3)){t=f,a[c]=null;break}}if(t==null){if(g==null)return document.createTextNode(S);t=document.createElementNS(o,g,S.is&&S),i&&(L.__m&&L.__m(n,a),i=!1),a=null}if(g==null)b===S||i&&t.data==S||(t.data=S);else{if(a=g=="textarea"&&S.defaultValue!=null?null:a&&st.call(t.childNodes),!i&&a!=null)for(b={},c=0;c<t.attributes.length;c++)b[(f=t.attributes[c]).name]=f.value;for(c in b)f=b[c],c=="dangerouslySetInnerHTML"?m=f:c=="children"||c in S||c=="value"&&"defaultValue"in S||c=="checked"&&"defaultChecked"in S||He(t,c,null,f,o);for(c in S)f=S[c],c=="children"?u=f:c=="dangerouslySetInnerHTML"?h=f:c=="value"?_=f:c=="checked"?y=f:i&&typeof f!="function"||b[c]===f||He(t,c,f,b[c],o);if(h)i||m&&(h.__html==m.__html||h.__html==t.innerHTML)||(t.innerHTML=h.__html),n.__k=[];else if(m&&(t.innerHTML=""),un(n.type=="template"?t.content:t,ot(u)?u:[u],n,r,s,g=="foreignObject"?"http://www.w3.org/1999/xhtml":o,a,l,a?a[0]:r.__k&&Ce(r,0),i,d),a!=null)for(c=a.length;c--;)Ct(a[c]);i&&g!="textarea"||(c="value",g=="progress"&&_==null?t.removeAttribute("value"):_!=null&&(_!==t[c]||g=="progress"&&!_||g=="option"&&_!=b[c])&&He(t,c,_,b[c],o),c="checked",y!=null&&y!=t[c]&&He(t,c,y,b[c],o))}return t}function $t(t,n,r){try{if(typeof t=="function"){var s=typeof t.__u=="function";s&&t.__u(),s&&n==null||(t.__u=t(n))}else t.current=n}catch(o){L.__e(o,r)}}function gn(t,n,r){var s,o;if(L.unmount&&L.unmount(t),(s=t.ref)&&(s.current&&s.current!=t.__e||$t(s,null,n)),(s=t.__c)!=null){if(s.componentWillUnmount)try{s.componentWillUnmount()}catch(a){L.__e(a,n)}s.base=s.__P=s.__n=null}if(s=t.__k)for(o=0;o<s.length;o++)s[o]&&gn(s[o],n,r||typeof t.type!="function");r||Ct(t.__e),t.__c=t.__=t.__e=void 0}function Gn(t,n,r){return this.constructor(t,r)}function Wn(t,n,r){var s,o,a,l;n==document&&(n=document.documentElement),L.__&&L.__(t,n),o=(s=!1)?null:n.__k,a=[],l=[],At(n,t=n.__k=Kn(w,null,[t]),o||Ze,Ze,n.namespaceURI,o?null:n.firstChild?st.call(n.childNodes):null,a,o?o.__e:n.firstChild,s,l),mn(a,t,l),t.props.children=null}function zn(t){function n(r){var s,o;return this.getChildContext||(s=new Set,(o={})[n.__c]=this,this.getChildContext=function(){return o},this.componentWillUnmount=function(){s=null},this.shouldComponentUpdate=function(a){this.props.value!=a.value&&s.forEach(function(l){l.__e=!0,_t(l)})},this.sub=function(a){s.add(a);var l=a.componentWillUnmount;a.componentWillUnmount=function(){s&&s.delete(a),l&&l.call(a)}}),r.children}return n.__c="__cC"+cn++,n.__=t,n.Provider=n.__l=(n.Consumer=function(r,s){return r.children(s)}).contextType=n,n}st=Qe.slice,L={__e:function(t,n,r,s){for(var o,a,l;n=n.__;)if((o=n.__c)&&!o.__)try{if((a=o.constructor)&&a.getDerivedStateFromError!=null&&(o.setState(a.getDerivedStateFromError(t)),l=o.__d),o.componentDidCatch!=null&&(o.componentDidCatch(t,s||{}),l=o.__d),l)return o.__E=o}catch(i){t=i}throw t}},sn=0,We.prototype.setState=function(t,n){var r;r=this.__s!=null&&this.__s!=this.state?this.__s:this.__s=fe({},this.state),typeof t=="function"&&(t=t(fe({},r),this.props)),t&&fe(r,t),t!=null&&this.__v&&(n&&this._sb.push(n),_t(this))},We.prototype.forceUpdate=function(t){this.__v&&(this.__e=!0,t&&this.__h.push(t),_t(this))},We.prototype.render=w,Se=[],on=typeof Promise=="function"?Promise.prototype.then.bind(Promise.resolve()):setTimeout,an=function(t,n){return t.__v.__b-n.__v.__b},Ye.__r=0,ut=Math.random().toString(8),je="__d"+ut,xe="__a"+ut,ln=/(PointerCapture)$|Capture$/i,kt=0,gt=xt(!1),bt=xt(!0),cn=0;var Jn=0;function e(t,n,r,s,o,a){n||(n={});var l,i,d=n;if("ref"in d)for(i in d={},n)i=="ref"?l=n[i]:d[i]=n[i];var c={type:t,props:d,key:r,ref:l,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:--Jn,__i:-1,__u:0,__source:o,__self:a};if(typeof t=="function"&&(l=t.defaultProps))for(i in l)d[i]===void 0&&(d[i]=l[i]);return L.vnode&&L.vnode(c),c}var Ae,B,pt,Mt,Me=0,bn=[],H=L,qt=H.__b,Bt=H.__r,Ut=H.diffed,Ot=H.__c,Kt=H.unmount,Vt=H.__;function Be(t,n){H.__h&&H.__h(B,t,Me||n),Me=0;var r=B.__H||(B.__H={__:[],__h:[]});return t>=r.__.length&&r.__.push({}),r.__[t]}function p(t){return Me=1,Zn(yn,t)}function Zn(t,n,r){var s=Be(Ae++,2);if(s.t=t,!s.__c&&(s.__=[yn(void 0,n),function(i){var d=s.__N?s.__N[0]:s.__[0],c=s.t(d,i);d!==c&&(s.__N=[c,s.__[1]],s.__c.setState({}))}],s.__c=B,!B.__f)){var o=function(i,d,c){if(!s.__c.__H)return!0;var h=!1,m=s.__c.props!==i;if(s.__c.__H.__.some(function(f){if(f.__N){h=!0;var _=f.__[0];f.__=f.__N,f.__N=void 0,_!==f.__[0]&&(m=!0)}}),a){var u=a.call(this,i,d,c);return h?u||m:u}return!h||m};B.__f=!0;var a=B.shouldComponentUpdate,l=B.componentWillUpdate;B.componentWillUpdate=function(i,d,c){if(this.__e){var h=a;a=void 0,o(i,d,c),a=h}l&&l.call(this,i,d,c)},B.shouldComponentUpdate=o}return s.__N||s.__}function R(t,n){var r=Be(Ae++,3);!H.__s&&_n(r.__H,n)&&(r.__=t,r.u=n,B.__H.__h.push(r))}function ee(t){return Me=5,De(function(){return{current:t}},[])}function De(t,n){var r=Be(Ae++,7);return _n(r.__H,n)&&(r.__=t(),r.__H=n,r.__h=t),r.__}function qe(t,n){return Me=8,De(function(){return t},n)}function Qn(t){var n=B.context[t.__c],r=Be(Ae++,9);return r.c=t,n?(r.__==null&&(r.__=!0,n.sub(B)),n.props.value):t.__}function Yn(){var t=Be(Ae++,11);if(!t.__){for(var n=B.__v;n!==null&&!n.__m&&n.__!==null;)n=n.__;var r=n.__m||(n.__m=[0,0]);t.__="P"+r[0]+"-"+r[1]++}return t.__}function Xn(){for(var t;t=bn.shift();){var n=t.__H;if(t.__P&&n)try{n.__h.some(ze),n.__h.some(yt),n.__h=[]}catch(r){n.__h=[],H.__e(r,t.__v)}}}H.__b=function(t){B=null,qt&&qt(t)},H.__=function(t,n){t&&n.__k&&n.__k.__m&&(t.__m=n.__k.__m),Vt&&Vt(t,n)},H.__r=function(t){Bt&&Bt(t),Ae=0;var n=(B=t.__c).__H;n&&(pt===B?(n.__h=[],B.__h=[],n.__.some(function(r){r.__N&&(r.__=r.__N),r.u=r.__N=void 0})):(n.__h.some(ze),n.__h.some(yt),n.__h=[],Ae=0)),pt=B},H.diffed=function(t){Ut&&Ut(t);var n=t.__c;n&&n.__H&&(n.__H.__h.length&&(bn.push(n)!==1&&Mt===H.requestAnimationFrame||((Mt=H.requestAnimationFrame)||er)(Xn)),n.__H.__.some(function(r){r.u&&(r.__H=r.u,r.u=void 0)})),pt=B=null},H.__c=function(t,n){n.some(function(r){try{r.__h.some(ze),r.__h=r.__h.filter(function(s){return!s.__||yt(s)})}catch(s){n.some(function(o){o.__h&&(o.__h=[])}),n=[],H.__e(s,r.__v)}}),Ot&&Ot(t,n)},H.unmount=function(t){Kt&&Kt(t);var n,r=t.__c;r&&r.__H&&(r.__H.__.some(function(s){try{ze(s)}catch(o){n=o}}),r.__H=void 0,n&&H.__e(n,r.__v))};var Ft=typeof requestAnimationFrame=="function";function er(t){var n,r=function(){clearTimeout(s),Ft&&cancelAnimationFrame(n),setTimeout(t)},s=setTimeout(r,35);Ft&&(n=requestAnimationFrame(r))}function ze(t){var n=B,r=t.__c;typeof r=="function"&&(t.__c=void 0,r()),B=n}function yt(t){var n=B;t.__c=t.__(),B=n}function _n(t,n){return!t||t.length!==n.length||n.some(function(r,s){return r!==t[s]})}function yn(t,n){return typeof n=="function"?n(t):n}class I extends String{__apiType;value;__meta__;constructor(n,r){super(n),this.value=n,this.__meta__=r}toString(){return this.value}}new I(`
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}
    `,{fragmentName:"RunRow"});new I(`
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}
    `,{fragmentName:"PendingApproval"});new I(`
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}
    `,{fragmentName:"CallRow"});new I(`
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}
    `,{fragmentName:"ToolRow"});const tr=new I(`
    query Agents($first: Int!, $after: String) {
  agents(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        model
        status
        updatedAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),nr=new I(`
    query AgentDetail($id: ID!) {
  agent(id: $id) {
    id
    name
    model
    systemPrompt
    maxSteps
    outputFormat
    status
    boundSkillReferences
    space {
      id
      name
    }
    mountedKnowledgeBases {
      id
      name
    }
    activatedTools {
      id
      name
    }
    runs(first: 50) {
      totalCount
      edges {
        node {
          ...RunRow
        }
      }
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),rr=new I(`
    query AgentChoices($spaceId: ID!) {
  space(id: $spaceId) {
    id
    visibleTools(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
    skills(first: 100) {
      edges {
        node {
          id
          name
          label
          version
        }
      }
    }
    knowledgeBases(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
  }
}
    `),sr=new I(`
    mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),or=new I(`
    mutation UpdateAgent($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),ar=new I(`
    query PreviewPrompt($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) {
    tokenEstimate
    budgetChars
    charCount
    warnings
    sections {
      kind
      source
      text
      truncated
      reason
    }
  }
}
    `),lr=new I(`
    mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run {
      ...RunRow
    }
    userErrors {
      field
      code
      message
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),ir=new I(`
    subscription AgentRunEvents($runId: ID!) {
  agentRunEvents(runId: $runId) {
    kind
    at
    delta
    toolId
    step
    toolCall {
      id
      toolId
      status
      latencyMs
      error {
        code
        message
      }
    }
    run {
      id
      status
      output
      steps
      error {
        code
        message
      }
    }
  }
}
    `),Ht=new I(`
    query AgentRun($id: ID!) {
  agentRun(id: $id) {
    ...RunRow
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),cr=new I(`
    query ApiKeys($first: Int!, $after: String, $state: ApiKeyState) {
  apiKeys(first: $first, after: $after, state: $state) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        label
        role
        createdAt
        expiresAt
        revokedAt
        lastUsedAt
        state
        space {
          id
          name
        }
      }
    }
  }
}
    `),dr=new I(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    apiKey {
      id
    }
    secret
    userErrors {
      field
      code
      message
    }
  }
}
    `),ur=new I(`
    mutation RevokeApiKey($input: RevokeApiKeyInput!) {
  revokeApiKey(input: $input) {
    apiKey {
      id
      state
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),pr=new I(`
    query PendingApprovals($spaceId: ID!, $first: Int!, $after: String) {
  pendingApprovals(spaceId: $spaceId, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...PendingApproval
      }
    }
  }
}
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}`),hr=new I(`
    query PendingApprovalCount($spaceId: ID!) {
  pendingApprovals(spaceId: $spaceId, first: 1) {
    totalCount
  }
}
    `),mr=new I(`
    mutation ApproveToolCall($input: ApproveToolCallInput!) {
  approveToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),fr=new I(`
    mutation RejectToolCall($input: RejectToolCallInput!) {
  rejectToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),gr=new I(`
    subscription ApprovalRequests($spaceId: ID!) {
  approvalRequests(spaceId: $spaceId) {
    kind
    toolCallId
  }
}
    `),br=new I(`
    subscription LiveToolCalls($filter: ToolCallFilter) {
  toolCalls(filter: $filter) {
    ...CallRow
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`),_r=new I(`
    query RecentToolCalls($filter: ToolCallFilter, $first: Int!, $after: String) {
  toolCalls(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...CallRow
      }
    }
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`),yr=new I(`
    query KnowledgeBases($first: Int!, $after: String) {
  knowledgeBases(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        description
        documentCount
        createdAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),vr=new I(`
    query KnowledgeBaseDetail($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on KnowledgeBase {
      name
      label
      description
      space {
        id
        name
      }
      documents(first: 100) {
        totalCount
        edges {
          node {
            id
            title
            source
            chunkCount
            createdAt
          }
        }
      }
    }
  }
}
    `),Sr=new I(`
    mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),wr=new I(`
    mutation AddDocument($input: AddDocumentInput!) {
  addDocument(input: $input) {
    document {
      id
      title
      chunkCount
    }
    outcome
    userErrors {
      field
      code
      message
    }
  }
}
    `),Ir=new I(`
    query SearchKnowledge($spaceId: ID!, $query: String!, $knowledgeBaseIds: [ID!], $topK: Int) {
  searchKnowledge(
    spaceId: $spaceId
    query: $query
    knowledgeBaseIds: $knowledgeBaseIds
    topK: $topK
  ) {
    text
    score
    headingPath
    chunkIndex
    source
    knowledgeBaseId
    document {
      id
      title
    }
  }
}
    `),kr=new I(`
    query McpServers($first: Int!, $after: String) {
  mcpServers(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        url
        command
        transport
        status
        authType
        lastSyncedAt
        lastError
        createdAt
        isGlobal
        boundSpaces {
          id
          name
        }
      }
    }
  }
}
    `),Cr=new I(`
    query McpServerTools($id: ID!, $after: String) {
  node(id: $id) {
    ... on McpServer {
      id
      tools(first: 100, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            name
            label
            status
            driftedAt
          }
        }
      }
    }
  }
}
    `),Ar=new I(`
    mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),$r=new I(`
    mutation SyncMcpServer($id: ID!) {
  syncMcpServer(id: $id) {
    mcpServer {
      id
      lastSyncedAt
      lastError
    }
    syncReport {
      pages
      added
      updated
      unchanged
      vanished
      disabled
      drifted
      reactivated
      skipped
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Tr=new I(`
    query Skills($first: Int!, $after: String, $filter: SkillFilter) {
  skills(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        type
        status
        version
        candidateVersion
        canaryPercent
        space {
          id
          name
        }
      }
    }
  }
}
    `),Er=new I(`
    query SkillDetail($id: ID!) {
  skill(id: $id) {
    id
    name
    label
    description
    prompt
    category
    tags
    triggerHints
    boundary
    toolIds
    type
    status
    version
    charCount
    createdAt
    updatedAt
    canaryPercent
    candidateVersion
    space {
      id
      name
    }
    versions {
      version
      channel
      prompt
      createdAt
    }
    channelHistory {
      action
      channel
      fromVersion
      toVersion
      canaryPercent
      actor
      at
    }
  }
}
    `),Rr=new I(`
    query SkillMd($id: ID!, $version: String) {
  skill(id: $id) {
    id
    name
    skillMd(version: $version)
  }
}
    `),Dr=new I(`
    mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Pr=new I(`
    mutation PublishSkillVersion($input: PublishSkillVersionInput!) {
  publishSkillVersion(input: $input) {
    skillVersion {
      version
      channel
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Nr=new I(`
    mutation PromoteSkillCandidate($input: PromoteSkillCandidateInput!) {
  promoteSkillCandidate(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Lr=new I(`
    mutation RollbackSkill($input: RollbackSkillInput!) {
  rollbackSkill(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),xr=new I(`
    mutation SetSkillCanary($input: SetSkillCanaryInput!) {
  setSkillCanary(input: $input) {
    skill {
      id
      canaryPercent
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Mr=new I(`
    mutation ImportSkill($input: ImportSkillInput!) {
  importSkill(input: $input) {
    skill {
      id
    }
    isCreated
    userErrors {
      field
      code
      message
    }
  }
}
    `),qr=new I(`
    query MatchSkills($spaceId: ID!, $query: String!, $topK: Int) {
  matchSkills(spaceId: $spaceId, query: $query, topK: $topK) {
    score
    reason
    lexicalScore
    semanticScore
    boundaryFactor
    skill {
      id
      name
      label
    }
  }
}
    `),Br=new I(`
    query Spaces($first: Int!, $after: String) {
  spaces(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        isSystem
        createdAt
      }
    }
  }
}
    `),Ur=new I(`
    query SpaceDetail($id: ID!) {
  space(id: $id) {
    id
    name
    label
    isSystem
    createdAt
    visibleTools(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          type
          isGlobal
        }
      }
    }
    skills(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          version
          space {
            id
          }
        }
      }
    }
    knowledgeBases(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          documentCount
        }
      }
    }
    agents(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          model
          status
        }
      }
    }
  }
}
    `),Or=new I(`
    mutation CreateSpace($input: CreateSpaceInput!) {
  createSpace(input: $input) {
    space {
      id
      name
      label
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Kr=new I(`
    query Tools($first: Int!, $after: String, $filter: ToolFilter) {
  tools(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...ToolRow
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),Vr=new I(`
    query SpaceTools($spaceId: ID!, $first: Int!, $after: String, $filter: ToolFilter) {
  space(id: $spaceId) {
    id
    visibleTools(
      first: $first
      after: $after
      filter: $filter
      includeInactive: true
    ) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...ToolRow
        }
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),vn=new I(`
    query ToolDetail($id: ID!) {
  tool(id: $id) {
    id
    name
    label
    description
    inputSchema
    outputSchema
    type
    status
    endpoint
    authType
    viewerCanManage
    sideEffect
    timeoutMs
    maxRetries
    tags
    group
    allowedRoles
    version
    owner
    createdAt
    updatedAt
    driftedAt
    isGlobal
    boundSpaces {
      id
      name
      label
    }
    mcpServer {
      id
      name
      isGlobal
      boundSpaces {
        id
        name
        label
      }
    }
    stats {
      calls
      failures
      failuresByCode
      p50LatencyMs
      p95LatencyMs
      lastCalledAt
    }
  }
}
    `),Fr=new I(`
    mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Hr=new I(`
    mutation UpdateTool($input: UpdateToolInput!) {
  updateTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),jr=new I(`
    mutation SetSpaceBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) {
    tool {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    mcpServer {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Tt=new I(`
    mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Gr=new I(`
    mutation InvokeTool($input: InvokeToolInput!) {
  invokeTool(input: $input) {
    status
    data
    traceId
    latencyMs
    error {
      code
      message
      detail
    }
  }
}
    `),Sn=new I(`
    query Viewer {
  viewer {
    role
    keyId
    keyLabel
    space {
      id
      name
      label
    }
  }
}
    `),Wr=new I(`
    query SpaceOptions {
  spaces(first: 100) {
    edges {
      node {
        id
        name
        label
        isSystem
      }
    }
  }
}
    `),vt="/console";let Et=0;function zr(){return Et}function ge(t,{replace:n=!1}={}){n?window.history.replaceState(null,"",t):(Et+=1,window.history.pushState(null,"",t)),window.dispatchEvent(new PopStateEvent("popstate"))}window.addEventListener("popstate",t=>{t.isTrusted&&(Et+=1)});function wn(){const[t,n]=p(jt);return R(()=>{const r=()=>n(jt());return window.addEventListener("popstate",r),()=>window.removeEventListener("popstate",r)},[]),t}function jt(){const t=window.location.pathname;return(t.startsWith(vt)?t.slice(vt.length):t).replace(/\/+$/,"")}function Rt(t){return wn(),new URLSearchParams(window.location.search).get(t)}function ie(t){return`${vt}${t}`}function T({to:t,children:n,...r}){return e("a",{...r,href:ie(t),onClick:s=>{s.defaultPrevented||s.button!==0||s.metaKey||s.ctrlKey||s.shiftKey||(s.preventDefault(),ge(ie(t)))},children:n})}const Jr=4e3;function Zr(t){const n=t.role,r=t.space?.id??null;return{admin:n==="ADMIN",manageSome:n==="ADMIN"||n==="SPACE_ADMIN",invoke:n!=="VIEWER",manage:s=>n==="ADMIN"||n==="SPACE_ADMIN"&&s!=null&&s===r}}const In=zn(null);function $(){const t=Qn(In);if(t===null)throw new Error("useSession outside a signed-in console");return t}function Z(t,n){const[r,s]=p({data:null,error:null,loading:!0}),[o,a]=p(0);R(()=>{let i=!0;return s(d=>({...d,loading:!0})),t().then(d=>i&&s({data:d,error:null,loading:!1}),d=>{i&&!(d instanceof rt)&&s(c=>({...c,error:re(d),loading:!1}))}),()=>{i=!1}},[...n,o]);const l=qe(()=>a(i=>i+1),[]);return{...r,reload:l}}function re(t){return t instanceof Error?t.message:String(t)}function j(){const[t,n]=p(!1),[r,s]=p([]),o=qe(async a=>{n(!0),s([]);try{const l=await a();return s(l.userErrors),l.userErrors.length===0?l:null}catch(l){return l instanceof rt||s([{field:null,code:"ERROR",message:re(l)}]),null}finally{n(!1)}},[]);return{busy:t,errors:r,setErrors:s,run:o}}function at(t,n){const r=n.split(".");return t.filter(s=>{const o=s.field??[];return o.length>=r.length&&r.every((a,l)=>o[o.length-r.length+l]===a)})}function te({errors:t,fields:n}){const r=t.filter(s=>n.every(o=>!at([s],o).length));return r.length?e("div",{class:"form-errors",role:"alert",children:r.map((s,o)=>e("p",{children:[s.message," ",e("span",{class:"code",children:s.code})]},o))}):null}function we({label:t,wide:n=!1,noValidate:r=!1,onSubmit:s,mutation:o,fields:a,submitLabel:l,cancel:i,notice:d,children:c}){return e("form",{class:n?"card form wide":"card form",onSubmit:s,"aria-label":t,noValidate:r,children:[c,e(te,{errors:o.errors,fields:a}),d,e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:o.busy,children:l}),typeof i=="string"?e(T,{class:"button",to:i,children:"Cancel"}):e("button",{type:"button",onClick:i,children:"Cancel"})]})]})}function Ue({label:t,name:n,errors:r=[],hint:s,children:o}){const a=Yn(),l=at(r,n),i=[s?`${a}-hint`:"",l.length?`${a}-error`:""].filter(Boolean).join(" ");return e("div",{class:`field${l.length?" invalid":""}`,children:[e("label",{for:a,children:t}),o({id:a,"aria-invalid":l.length>0,"aria-describedby":i||void 0}),s&&e("p",{class:"hint",id:`${a}-hint`,children:s}),l.length>0&&e("p",{class:"field-error",id:`${a}-error`,role:"alert",children:l.map(d=>d.message).join(" ")})]})}function C({label:t,name:n,value:r,onInput:s,errors:o,hint:a,type:l="text",...i}){return e(Ue,{label:t,name:n,errors:o,hint:a,children:d=>e("input",{...d,...i,name:n,type:l,value:r,onInput:c=>s(c.currentTarget.value)})})}function ne({label:t,name:n,value:r,onInput:s,errors:o,hint:a,rows:l=6,mono:i=!1}){return e(Ue,{label:t,name:n,errors:o,hint:a,children:d=>e("textarea",{...d,class:i?"mono":void 0,name:n,rows:l,value:r,spellcheck:!i,onInput:c=>s(c.currentTarget.value)})})}function U({label:t,name:n,value:r,options:s,onChange:o,errors:a,hint:l}){return e(Ue,{label:t,name:n,errors:a,hint:l,children:i=>e("select",{...i,name:n,value:s.some(([d])=>d===r)?r:s[0]?.[0],onChange:d=>o(d.currentTarget.value),children:s.map(([d,c])=>e("option",{value:d,children:c},d))})})}function $e({legend:t,options:n,selected:r,onChange:s,errors:o=[],name:a}){const l=at(o,a);return e("fieldset",{class:"checkbox-group",children:[e("legend",{children:t}),n.length===0&&e("p",{class:"hint",children:"Nothing to choose from."}),n.map(i=>e("label",{class:"check",children:[e("input",{type:"checkbox",checked:r.includes(i.value),onChange:d=>s(d.currentTarget.checked?[...r,i.value]:r.filter(c=>c!==i.value))}),i.label]},i.value)),l.length>0&&e("p",{class:"field-error",role:"alert",children:l.map(i=>i.message).join(" ")})]})}function Xe(t){if(!t.trim())return{value:null,problem:null};try{return{value:JSON.parse(t),problem:null}}catch(n){return{value:null,problem:`Not valid JSON: ${re(n)}`}}}function et(t){return JSON.stringify(t,null,2)}function Te({value:t,label:n}){return e("pre",{class:"json","aria-label":n,tabIndex:0,children:t==null?"—":et(t)})}function x({title:t,children:n}){const r=ee(null);return R(()=>{zr()!==0&&r.current?.focus({preventScroll:!0})},[t]),e("header",{class:"page-header",children:[e("h1",{tabIndex:-1,ref:r,children:t}),n&&e("div",{class:"actions",children:n})]})}function Y({error:t,retry:n}){return t?e("div",{class:"form-errors",role:"alert",children:[e("p",{children:t}),n&&e("button",{type:"button",onClick:n,children:"Try again"})]}):null}function lt({loads:t}){const n=t.filter(s=>s.error!==null);if(!n.length)return null;const r=[...new Set(n.map(s=>s.error))];return e(Y,{error:r.join(" "),retry:()=>n.forEach(s=>s.reload())})}function Re({children:t}){return e("div",{class:"notice",role:"status",children:t})}function E({children:t,tone:n="plain"}){return e("span",{class:`badge ${n}`,children:t})}function J(t){return t==="ACTIVE"||t==="SUCCESS"||t==="SUCCEEDED"||t==="PRODUCTION"?"good":t==="DISABLED"||t==="FAILED"||t==="MAX_STEPS"?"bad":t==="RUNNING"||t==="CANDIDATE"||t==="QUEUED"||t==="WAITING_APPROVAL"||t==="PENDING_APPROVAL"||t==="PENDING"?"busy":"plain"}function G(t){if(!t)return"—";const n=new Date(t);return Number.isNaN(n.getTime())?t:n.toLocaleString()}function Ee(t){return t==null?"—":`${t<10?t.toFixed(1):Math.round(t)} ms`}function be(t){const[n,r]=p([null]);return R(()=>r([null]),[t]),{after:n[n.length-1],page:n.length,next:o=>o&&r(a=>[...a,o]),previous:()=>r(o=>o.length>1?o.slice(0,-1):o)}}function _e({label:t,pages:n,pageSize:r,connection:s}){const{page:o,previous:a}=n,l=s.edges.length,i=s.totalCount,d=s.pageInfo.hasNextPage,c=()=>n.next(s.pageInfo.endCursor??null),h=i===0?0:(o-1)*r+1;return e("nav",{class:"pager","aria-label":`${t} pages`,children:[e("button",{type:"button",onClick:a,disabled:o<=1,children:"Previous page"}),e("span",{"aria-live":"polite",children:[h,"–",h+l-(l?1:0)," of ",i.toLocaleString()]}),e("button",{type:"button",onClick:c,disabled:!d,children:"Next page"})]})}const ht=50,Qr=["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"];function Yr({sub:t}){if(t==="new")return e(kn,{tool:null});const[n,r]=t.split("/");return n&&r==="edit"?e(is,{id:decodeURIComponent(n)}):n?e(rs,{id:decodeURIComponent(n)}):e(es,{})}function he(t){return(t??[]).map(n=>[n.id,n.label])}function X(){const{api:t}=$();return Z(async()=>(await t.request(Wr,{})).spaces.edges.map(({node:n})=>n),[])}function me({spaces:t}){return e(Y,{error:t.error&&`The spaces could not be loaded: ${t.error}`,retry:t.reload})}function Xr(t,n){const[r,s]=p(t);return R(()=>{const o=window.setTimeout(()=>s(t),n);return()=>window.clearTimeout(o)},[t,n]),r}function Le(t){const[n,r]=p(Rt(t)??"");return[n,o=>{r(o);const a=new URLSearchParams(window.location.search);o?a.set(t,o):a.delete(t);const l=a.toString();window.history.replaceState(null,"",`${window.location.pathname}${l?`?${l}`:""}`)}]}function es(){const{api:t,can:n}=$(),r=X(),[s,o]=Le("search"),[a,l]=Le("type"),[i,d]=Le("status"),[c,h]=Le("binding"),[m,u]=Le("space"),_={search:Xr(s.trim(),250)||null,type:a||null,status:i||null,isGlobal:c===""?null:c==="global"},y=JSON.stringify([_,m]),b=be(y),S=Z(async()=>{if(m){const v=await t.request(Vr,{spaceId:m,first:ht,after:b.after,filter:_});if(!v.space)throw new Error(`Space ${m} is not visible to this key.`);return v.space.visibleTools}return(await t.request(Kr,{first:ht,after:b.after,filter:_})).tools},[y,b.after]),g=S.data;return e(w,{children:[e(x,{title:"Tools",children:n.manageSome&&e(T,{class:"button primary",to:"/tools/new",children:"Create tool"})}),e("form",{class:"filters",role:"search","aria-label":"Filter tools",onSubmit:v=>v.preventDefault(),children:[e(C,{label:"Search",name:"search",value:s,onInput:o,placeholder:"name, label or description"}),e(U,{label:"Type",name:"type",value:a,onChange:l,options:[["","Any type"],["BUILTIN","Builtin"],["CUSTOM","Custom (HTTP)"],["MCP","MCP"]]}),e(U,{label:"Status",name:"status",value:i,onChange:d,options:[["","Any status"],["ACTIVE","Active"],["DISABLED","Disabled"],["ARCHIVED","Archived"]]}),e(U,{label:"Space",name:"space",value:m,onChange:u,options:[["",n.admin?"Every space":"My space"],...he(r.data)],hint:m?"Tools visible in this space.":void 0}),e(U,{label:"Binding",name:"scope",value:c,onChange:h,options:[["","Global and bound"],["global","Global only"],["bound","Bound only"]]})]}),e(lt,{loads:[r,S]}),g&&e("div",{"aria-busy":S.loading,children:[e("table",{class:"tools",children:[e("caption",{class:"sr-only",children:"Tools"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Type"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Visible in"})]})}),e("tbody",{children:g.edges.map(({node:v})=>e(ts,{tool:v},v.id))})]}),g.edges.length===0&&e("p",{class:"empty",children:"No tool matches."}),e(_e,{label:"Tools",pages:b,pageSize:ht,connection:g})]})]})}function ts({tool:t}){return e("tr",{children:[e("td",{children:[e(T,{to:`/tools/${encodeURIComponent(t.id)}`,children:t.name}),t.driftedAt&&e(w,{children:[" ",e(E,{tone:"bad",children:"drifted"})]})]}),e("td",{children:t.label}),e("td",{children:e(E,{children:t.type})}),e("td",{children:e(E,{tone:J(t.status),children:t.status})}),e("td",{children:ns(t)})]})}function ns(t){if(t.isGlobal)return t.mcpServer?"every space (server is global)":"every space (global)";const n=t.boundSpaces.map(r=>r.name).join(", ");return t.mcpServer?`spaces of server ${t.mcpServer.name}`:n||"bound"}function rs({id:t}){const{api:n}=$(),r=Z(()=>n.request(vn,{id:t}),[t]),s=r.data?.tool,o=new URLSearchParams(window.location.search).get("saved");return r.data&&!s?e(w,{children:[e(x,{title:"Tool not found"}),e("p",{children:["No tool ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/tools",children:"Back to Tools"})]})]}):e(w,{children:[e(x,{title:s?`Tool ${s.name}`:"Tool",children:[e(T,{class:"button",to:"/tools",children:"All tools"}),s?.type==="CUSTOM"&&s.viewerCanManage&&e(T,{class:"button",to:`/tools/${encodeURIComponent(s.id)}/edit`,children:"Edit tool"})]}),e(Y,{error:r.error,retry:r.reload}),o&&e(Re,{children:["Tool ",o==="created"?"created":"saved","."]}),s&&e(w,{children:[e(os,{tool:s,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-definition",children:[e("h2",{id:"tool-definition",children:"Definition"}),e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:s.label}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Type"}),e("dd",{children:s.type}),e("dt",{children:"Description"}),e("dd",{class:"prose",children:s.description}),s.endpoint&&e(w,{children:[e("dt",{children:"Endpoint"}),e("dd",{children:e("code",{children:s.endpoint})})]}),e("dt",{children:"Credentials"}),e("dd",{children:s.authType==="NONE"?"none":`${s.authType} (secret stored, never shown)`}),e("dt",{children:"Side effect"}),e("dd",{children:s.sideEffect}),e("dt",{children:"Version"}),e("dd",{children:s.version}),e("dt",{children:"Owner"}),e("dd",{children:s.owner??"—"}),e("dt",{children:"Tags"}),e("dd",{children:s.tags.length?s.tags.join(", "):"—"}),e("dt",{children:"Group"}),e("dd",{children:s.group??"—"}),s.driftedAt&&e(w,{children:[e("dt",{children:"Drift"}),e("dd",{children:[e(E,{tone:"bad",children:"drifted"})," the MCP server changed its description or schema on ",G(s.driftedAt),". Re-activating the tool accepts the change."]})]})]})]}),e("section",{"aria-labelledby":"tool-policies",children:[e("h2",{id:"tool-policies",children:"Policies"}),e("dl",{class:"facts",children:[e("dt",{children:"Timeout"}),e("dd",{children:[s.timeoutMs.toLocaleString()," ms per attempt"]}),e("dt",{children:"Retries"}),e("dd",{children:[s.maxRetries," ",s.sideEffect==="WRITE"?"(only with an idempotency key)":""]}),e("dt",{children:"Allowed roles"}),e("dd",{children:s.allowedRoles.length?s.allowedRoles.join(", "):"every role"})]})]}),e(as,{tool:s,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-stats",children:[e("h2",{id:"tool-stats",children:"Calls"}),e("dl",{class:"facts",children:[e("dt",{children:"Calls"}),e("dd",{children:s.stats.calls.toLocaleString()}),e("dt",{children:"Failures"}),e("dd",{children:s.stats.failures.toLocaleString()}),e("dt",{children:"p50 latency"}),e("dd",{children:Ee(s.stats.p50LatencyMs)}),e("dt",{children:"p95 latency"}),e("dd",{children:Ee(s.stats.p95LatencyMs)}),e("dt",{children:"Last call"}),e("dd",{children:G(s.stats.lastCalledAt)})]}),e(ss,{value:s.stats.failuresByCode})]}),e("section",{"aria-labelledby":"tool-schemas",children:[e("h2",{id:"tool-schemas",children:"Schemas"}),e("h3",{children:"Input schema"}),e(Te,{label:"Input schema",value:s.inputSchema}),e("h3",{children:"Output schema"}),e(Te,{label:"Output schema",value:s.outputSchema})]}),e(ls,{tool:s})]})]})}function ss({value:t}){const n=t&&typeof t=="object"?Object.entries(t):[];return n.length?e("table",{class:"compact",children:[e("caption",{children:"Failures by code"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Code"}),e("th",{scope:"col",children:"Failures"})]})}),e("tbody",{children:n.map(([r,s])=>e("tr",{children:[e("td",{children:e("code",{children:r})}),e("td",{children:s})]},r))})]}):e("p",{class:"muted",children:"No failures."})}function os({tool:t,onChanged:n}){const{api:r}=$(),s=j(),o=async a=>{await s.run(async()=>(await r.request(Tt,{input:{id:t.id,status:a}})).setStatus)&&n()};return e("div",{class:"status-line",children:[e("span",{children:["Status ",e(E,{tone:J(t.status),children:t.status})]}),t.viewerCanManage&&t.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>o("ACTIVE"),disabled:s.busy,children:t.driftedAt?"Re-activate tool":"Enable tool"}),t.viewerCanManage&&t.status==="ACTIVE"&&e("button",{type:"button",onClick:()=>o("DISABLED"),disabled:s.busy,children:"Disable tool"}),e(te,{errors:s.errors,fields:[]})]})}function as({tool:t,onChanged:n}){const{api:r,can:s}=$(),o=X(),a=t.mcpServer,l=(a?a.boundSpaces:t.boundSpaces).map(y=>y.id),[i,d]=p(l);R(()=>d(l),[l.join(",")]);const c=j(),[h,m]=p(!1),u=a?a.isGlobal:t.isGlobal,f=async y=>{y.preventDefault(),m(!1),await c.run(async()=>(await r.request(jr,{input:{id:a?a.id:t.id,spaceIds:i}})).setSpaceBindings)&&(m(!0),n())},_=(a?a.boundSpaces:t.boundSpaces).map(y=>y.label).join(", ");return e("section",{"aria-labelledby":"tool-bindings",children:[e("h2",{id:"tool-bindings",children:"Bindings"}),e("p",{children:[u?e(w,{children:[e(E,{children:"global"})," no binding row: every space sees this tool"]}):e(w,{children:[e(E,{tone:"busy",children:"bound"})," only these spaces see it: ",_]}),a&&e(w,{children:[" ","— inherited from MCP server ",e("strong",{children:a.name})]}),"."]}),s.admin&&e("form",{class:"card form",onSubmit:f,"aria-label":a?`Bindings of MCP server ${a.name}`:"Bindings",children:[e($e,{legend:a?`Spaces bound to MCP server ${a.name}`:"Bound spaces (none checked: global)",name:"spaceIds",options:(o.data??[]).map(y=>({value:y.id,label:`${y.label} (${y.name})`})),selected:i,onChange:d,errors:c.errors}),e(me,{spaces:o}),e(te,{errors:c.errors,fields:["spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",disabled:c.busy,children:"Save bindings"}),h&&e("span",{role:"status",children:"Bindings saved."})]})]})]})}function ls({tool:t}){const{api:n,can:r,viewer:s}=$(),o=X(),[a,l]=p(s.space?.id??""),[i,d]=p("{}"),[c,h]=p(null),[m,u]=p(null),[f,_]=p(!1);if(!r.invoke||t.status!=="ACTIVE")return null;const y=he(o.data);return e("section",{"aria-labelledby":"tool-try",children:[e("h2",{id:"tool-try",children:"Try it"}),e("form",{class:"card form",onSubmit:async S=>{S.preventDefault();const g=Xe(i);if(g.problem){u(g.problem);return}_(!0),u(null);try{const v=await n.request(Gr,{input:{spaceId:a||y[0]?.[0]||"",toolId:t.id,arguments:g.value??{}}});h(v.invokeTool)}catch(v){u(re(v))}finally{_(!1)}},children:[r.admin&&e(U,{label:"Call in space",name:"spaceId",value:a,onChange:l,options:y}),r.admin&&e(me,{spaces:o}),e(Ue,{label:"Arguments (JSON)",name:"arguments",errors:m?[{field:["arguments"],code:"JSON",message:m}]:[],children:S=>e("textarea",{...S,class:"mono",rows:4,value:i,onInput:g=>d(g.currentTarget.value)})}),e("div",{class:"buttons",children:e("button",{type:"submit",disabled:f,children:"Call tool"})})]}),c&&e("div",{class:"result",role:"status",children:[e("p",{children:[e(E,{tone:J(c.status),children:c.status})," in ",Ee(c.latencyMs)," · trace ",e("code",{children:c.traceId})]}),c.error?e("p",{children:[e("code",{children:c.error.code})," ",c.error.message]}):e(Te,{label:"Result",value:c.data})]})]})}function is({id:t}){const{api:n}=$(),r=Z(()=>n.request(vn,{id:t}),[t]);return r.error?e(Y,{error:r.error,retry:r.reload}):r.data?r.data.tool?e(kn,{tool:r.data.tool}):e("p",{children:["No tool ",t," is visible to this key."]}):e("p",{"aria-busy":"true",children:"Loading…"})}const cs=[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"],["OAUTH_CLIENT_CREDENTIALS","OAuth client credentials"]],ds=et({type:"object",properties:{orderId:{type:"string",description:"The order number."}},required:["orderId"]});function Gt(t,n){const r=Xe(t);return r.problem?r.problem:r.value===null?n?"An input schema is required.":null:typeof r.value!="object"||Array.isArray(r.value)?"A JSON Schema is a JSON object.":n&&r.value.type!=="object"?'The input schema must have "type": "object".':null}function kn({tool:t}){const{api:n,can:r,viewer:s}=$(),o=X(),a=t===null,[l,i]=p(t?.name??""),[d,c]=p(t?.label??""),[h,m]=p(t?.description??""),[u,f]=p(t?et(t.inputSchema):ds),[_,y]=p(t?.outputSchema?et(t.outputSchema):""),[b,S]=p(t?.endpoint??""),[g,v]=p(t?.authType??"NONE"),[k,A]=p(""),[M,W]=p(""),[O,P]=p(""),[D,V]=p(""),[Q,z]=p(t?.sideEffect??"READ"),[ce,Oe]=p(t?String(t.timeoutMs):""),[se,q]=p(t?String(t.maxRetries):""),[ye,de]=p(t?.tags.join(", ")??""),[Ie,it]=p(t?.group??""),[ct,N]=p(t?.allowedRoles??[]),[oe,ve]=p(t?.version??""),[ke,ae]=p(t?.owner??""),[le,ue]=p(!r.admin&&s.space?[s.space.id]:[]),K=j(),Ke=De(()=>Gt(u,!0),[u]),Ve=De(()=>Gt(_,!1),[_]);if(!r.manageSome)return e("p",{children:"This key cannot create or change tools."});const dt=[...Ke?[{field:["input","inputSchema"],code:"INVALID_JSON",message:Ke}]:[],...Ve?[{field:["input","outputSchema"],code:"INVALID_JSON",message:Ve}]:[]],F=[...dt,...K.errors.filter(pe=>!dt.some(Fe=>Fe.field.join()===pe.field?.join()))],Dn=a||g!==t?.authType||M!==""||k!==""||O!==""||D!=="",Pn=async pe=>{if(pe.preventDefault(),dt.length)return;const Fe=Dn?{type:g,headerName:k||null,secret:M||null,tokenUrl:O||null,clientId:D||null}:null,Dt={label:d,description:h,inputSchema:Xe(u).value,outputSchema:Xe(_).value,endpoint:b,sideEffect:Q,timeoutMs:ce?Number(ce):null,maxRetries:se?Number(se):null,tags:ye.split(",").map(Pe=>Pe.trim()).filter(Boolean),group:Ie||(a?null:""),allowedRoles:ct,version:oe||null,owner:ke||(a?null:"")};if(a){const Pe={...Dt,name:l,auth:Fe,spaceIds:le.length?le:null},Ne=await K.run(async()=>(await n.request(Fr,{input:Pe})).createTool);Ne?.tool&&ge(ie(`/tools/${encodeURIComponent(Ne.tool.id)}?saved=created`))}else{const Pe={...Dt,id:t.id,auth:Fe},Ne=await K.run(async()=>(await n.request(Hr,{input:Pe})).updateTool);Ne?.tool&&ge(ie(`/tools/${encodeURIComponent(Ne.tool.id)}?saved=updated`))}W("")},Nn=["name","label","description","inputSchema","outputSchema","endpoint","auth","auth.type","auth.headerName","auth.secret","auth.tokenUrl","auth.clientId","sideEffect","timeoutMs","maxRetries","tags","group","allowedRoles","version","owner","spaceIds"];return e(w,{children:[e(x,{title:a?"Create tool":`Edit tool ${t.name}`}),e(we,{wide:!0,noValidate:!0,onSubmit:Pn,mutation:K,fields:Nn,submitLabel:a?"Create tool":"Save tool",cancel:a?"/tools":`/tools/${encodeURIComponent(t.id)}`,children:[e("p",{class:"hint",children:"A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials."}),a?e(C,{label:"Name",name:"name",value:l,onInput:i,errors:F,hint:"For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."}):e("p",{children:["Name ",e("code",{children:t.name})," (fixed)"]}),e(C,{label:"Label",name:"label",value:d,onInput:c,errors:F}),e(ne,{label:"Description",name:"description",value:h,onInput:m,errors:F,rows:3,hint:"Written for the model: what it does, when to use it, when not to."}),e(C,{label:"Endpoint",name:"endpoint",value:b,onInput:S,errors:F,type:"url",placeholder:"https://…"}),e(ne,{label:"Input schema",name:"inputSchema",value:u,onInput:f,errors:F,rows:10,mono:!0,hint:'JSON Schema 2020-12 of the arguments, with "type": "object".'}),e(ne,{label:"Output schema",name:"outputSchema",value:_,onInput:y,errors:F,rows:5,mono:!0,hint:"Optional JSON Schema of the result."}),e("fieldset",{children:[e("legend",{children:"Credentials"}),!a&&t.authType!=="NONE"&&e("p",{class:"hint",children:["A ",t.authType," secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole."]}),e(U,{label:"Authentication",name:"auth.type",value:g,onChange:v,options:cs,errors:F}),(g==="API_KEY"||g==="HEADER")&&e(C,{label:"Header name",name:"auth.headerName",value:k,onInput:A,errors:F}),g==="OAUTH_CLIENT_CREDENTIALS"&&e(w,{children:[e(C,{label:"Token URL",name:"auth.tokenUrl",value:O,onInput:P,errors:F,type:"url"}),e(C,{label:"Client id",name:"auth.clientId",value:D,onInput:V,errors:F})]}),g!=="NONE"&&e(C,{label:"Secret",name:"auth.secret",value:M,onInput:W,errors:F,type:"password",autoComplete:"new-password",hint:a?"Write-only: stored encrypted, never shown again.":"Write-only: type a new secret to replace the stored one."})]}),e("fieldset",{children:[e("legend",{children:"Policies"}),e(U,{label:"Side effect",name:"sideEffect",value:Q,onChange:z,errors:F,options:[["READ","READ (safe to retry)"],["WRITE","WRITE (retried only with an idempotency key)"]]}),e(C,{label:"Timeout (ms)",name:"timeoutMs",value:ce,onInput:Oe,errors:F,type:"number",placeholder:"10000"}),e(C,{label:"Max retries",name:"maxRetries",value:se,onInput:q,errors:F,type:"number",placeholder:"1"}),e($e,{legend:"Allowed roles (none checked: every role)",name:"allowedRoles",options:Qr.map(pe=>({value:pe,label:pe})),selected:ct,onChange:N,errors:F})]}),e("fieldset",{children:[e("legend",{children:"Catalog"}),e(C,{label:"Tags",name:"tags",value:ye,onInput:de,errors:F,hint:"Comma-separated."}),e(C,{label:"Group",name:"group",value:Ie,onInput:it,errors:F}),e(C,{label:"Version",name:"version",value:oe,onInput:ve,errors:F,placeholder:"1.0.0"}),e(C,{label:"Owner",name:"owner",value:ke,onInput:ae,errors:F})]}),a&&r.admin&&e($e,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(o.data??[]).map(pe=>({value:pe.id,label:`${pe.label} (${pe.name})`})),selected:le,onChange:ue,errors:F}),a&&r.admin&&e(me,{spaces:o})]})]})}const Wt=50;function us({sub:t}){return t==="new"?e(Cn,{agent:null}):t?e(hs,{id:decodeURIComponent(t)}):e(ps,{})}function ps(){const{api:t,can:n}=$(),r=be("agents"),s=Z(()=>t.request(tr,{first:Wt,after:r.after}),[r.after]),o=s.data?.agents;return e(w,{children:[e(x,{title:"Agents",children:n.manageSome&&e(T,{class:"button primary",to:"/agents/new",children:"Create agent"})}),e(Y,{error:s.error,retry:s.reload}),o&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Agents"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Model"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Changed"})]})}),e("tbody",{children:o.edges.map(({node:a})=>e("tr",{children:[e("td",{children:e(T,{to:`/agents/${encodeURIComponent(a.id)}`,children:a.name})}),e("td",{children:a.space.name}),e("td",{children:e("code",{children:a.model})}),e("td",{children:e(E,{tone:J(a.status),children:a.status})}),e("td",{children:G(a.updatedAt)})]},a.id))})]}),o.edges.length===0&&e("p",{class:"empty",children:"No agent yet."}),e(_e,{label:"Agents",pages:r,pageSize:Wt,connection:o})]})]})}function hs({id:t}){const{api:n,can:r}=$(),s=Z(()=>n.request(nr,{id:t}),[t]),o=s.data?.agent,[a,l]=p(!1);if(s.data&&!o)return e(w,{children:[e(x,{title:"Agent not found"}),e("p",{children:["No agent ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/agents",children:"Back to Agents"})]})]});const i=o?r.manage(o.space.id):!1;return e(w,{children:[e(x,{title:o?`Agent ${o.name}`:"Agent",children:[e(T,{class:"button",to:"/agents",children:"All agents"}),i&&!a&&e("button",{type:"button",onClick:()=>l(!0),children:"Edit manifest"})]}),e(Y,{error:s.error,retry:s.reload}),o&&a&&e(Cn,{agent:o,onSaved:()=>{l(!1),s.reload()},onCancel:()=>l(!1)}),o&&!a&&e(w,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Space"}),e("dd",{children:o.space.name}),e("dt",{children:"Model"}),e("dd",{children:e("code",{children:o.model})}),e("dt",{children:"Status"}),e("dd",{children:e(E,{tone:J(o.status),children:o.status})}),e("dt",{children:"Max steps"}),e("dd",{children:o.maxSteps}),e("dt",{children:"Knowledge bases"}),e("dd",{children:o.mountedKnowledgeBases.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Tools"}),e("dd",{children:o.activatedTools.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Skills"}),e("dd",{children:o.boundSkillReferences.join(", ")||"—"}),e("dt",{children:"System prompt"}),e("dd",{class:"prose",children:o.systemPrompt}),e("dt",{children:"Output format"}),e("dd",{class:"prose",children:o.outputFormat??"—"})]}),e(fs,{agentId:o.id}),r.invoke&&o.status==="ACTIVE"&&e(gs,{agentId:o.id,onFinished:s.reload}),e(bs,{agent:o})]})]})}function ms(t){return t.split(/[\n,]/).map(n=>n.trim()).filter(Boolean)}function Cn({agent:t,onSaved:n,onCancel:r}){const{api:s,can:o,viewer:a}=$(),l=X(),[i,d]=p(t?.space.id??a.space?.id??""),[c,h]=p(t?.name??""),[m,u]=p(t?.model??""),[f,_]=p(t?.systemPrompt??""),[y,b]=p(String(t?.maxSteps??5)),[S,g]=p(t?.outputFormat??""),[v,k]=p(t?.mountedKnowledgeBases.map(q=>q.id)??[]),[A,M]=p(t?.activatedTools.map(q=>q.id)??[]),[W,O]=p(t?.boundSkillReferences.join(`
`)??""),[P,D]=p([]),V=i||l.data?.find(q=>!q.isSystem)?.id||"",Q=Z(async()=>V?(await s.request(rr,{spaceId:V})).space:null,[V]),z=j();if(!o.manageSome)return e("p",{children:"This key cannot create or change agents."});const ce=Q.data,se=e(we,{label:"Agent manifest",wide:!0,onSubmit:async q=>{q.preventDefault();const ye={name:c,model:m,systemPrompt:f,maxSteps:Number(y)||null,outputFormat:S||(t?"":null),mountedKnowledgeBaseIds:v,activatedToolIds:A,boundSkillIds:ms(W)};if(t){const de=await z.run(async()=>(await s.request(or,{input:{id:t.id,...ye}})).updateAgent);de&&(D(de.notices),n?.())}else{const de=await z.run(async()=>(await s.request(sr,{input:{...ye,spaceId:V,maxSteps:Number(y)||5}})).createAgent);de?.agent&&ge(ie(`/agents/${encodeURIComponent(de.agent.id)}`))}},mutation:z,fields:["spaceId","name","model","systemPrompt","maxSteps","outputFormat","mountedKnowledgeBaseIds","activatedToolIds","boundSkillIds"],submitLabel:t?"Save manifest":"Create agent",cancel:t&&r?r:"/agents",notice:P.length>0&&e(Re,{children:e("ul",{class:"plain",children:P.map(q=>e("li",{children:q},q))})}),children:[!t&&o.admin&&e(U,{label:"Space",name:"spaceId",value:V,onChange:d,errors:z.errors,options:he(l.data)}),!t&&o.admin&&e(me,{spaces:l}),e(C,{label:"Name",name:"name",value:c,onInput:h,errors:z.errors}),e(C,{label:"Model",name:"model",value:m,onInput:u,errors:z.errors,hint:"The model name sent to the OpenAI-compatible endpoint."}),e(ne,{label:"System prompt",name:"systemPrompt",value:f,onInput:_,errors:z.errors,rows:6}),e(C,{label:"Max steps",name:"maxSteps",value:y,onInput:b,errors:z.errors,type:"number"}),e(ne,{label:"Output format",name:"outputFormat",value:S,onInput:g,errors:z.errors,rows:2}),ce&&e(w,{children:[e($e,{legend:"Knowledge bases",name:"mountedKnowledgeBaseIds",options:ce.knowledgeBases.edges.map(({node:q})=>({value:q.id,label:q.label})),selected:v,onChange:k,errors:z.errors}),e($e,{legend:"Tools",name:"activatedToolIds",options:ce.visibleTools.edges.map(({node:q})=>({value:q.id,label:`${q.name} — ${q.label}`})),selected:A,onChange:M,errors:z.errors}),e(ne,{label:"Skills",name:"boundSkillIds",value:W,onInput:O,errors:z.errors,rows:3,mono:!0,hint:`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${ce.skills.edges.map(({node:q})=>q.id).join(", ")||"none"}.`})]})]});return t?se:e(w,{children:[e(x,{title:"Create agent"}),se]})}function fs({agentId:t}){const{api:n}=$(),[r,s]=p(""),[o,a]=p(null),[l,i]=p(null),d=async h=>{h.preventDefault(),i(null);try{a((await n.request(ar,{agentId:t,message:r||"(preview)"})).previewPrompt)}catch(m){i(re(m))}},c=o?Math.min(100,Math.round(o.charCount/Math.max(1,o.budgetChars)*100)):0;return e("section",{"aria-labelledby":"preview-title",children:[e("h2",{id:"preview-title",children:"Prompt preview"}),e("form",{class:"filters",onSubmit:d,"aria-label":"Preview the prompt",children:[e(C,{label:"Message to assemble for",name:"previewMessage",value:r,onInput:s}),e("button",{type:"submit",children:"Preview prompt"})]}),l&&e("p",{role:"alert",children:l}),o&&e("div",{children:[e("p",{children:[o.charCount.toLocaleString()," of ",o.budgetChars.toLocaleString()," characters (",c,"% of the budget), about"," ",o.tokenEstimate.toLocaleString()," tokens."]}),e("meter",{min:0,max:o.budgetChars,value:o.charCount,"aria-label":"Prompt budget used"}),o.warnings.map(h=>e("p",{class:"error-text",children:h},h)),e("ol",{class:"sections",children:o.sections.map((h,m)=>e("li",{class:"card",children:[e("p",{children:[e(E,{children:h.kind})," ",h.source&&e("code",{children:h.source})," ",h.truncated&&e(E,{tone:"bad",children:"cut to fit"})]}),h.reason&&e("p",{class:"muted",children:h.reason}),e("pre",{class:"json",children:h.text})]},m))})]})]})}function gs({agentId:t,onFinished:n}){const{api:r}=$(),[s,o]=p(""),[a,l]=p([]),[i,d]=p(null),[c,h]=p(""),m=j(),u=ee(null);R(()=>()=>u.current?.(),[]);const[f,_]=p("connecting");R(()=>r.onSocketState(_),[r]);const y=ee(!1),b=i?.id??null,S=i?.status==="RUNNING";return R(()=>{f==="reconnecting"&&(y.current=!0),!(f!=="connected"||!y.current||b===null)&&(y.current=!1,r.request(Ht,{id:b}).then(v=>{const k=v.agentRun;!k||k.id!==b||(d(k),k.status!=="RUNNING"&&(u.current?.(),u.current=null,n()))},()=>{}))},[r,f,b,n]),e("section",{"aria-labelledby":"invoke-title",children:[e("h2",{id:"invoke-title",children:"Run the agent"}),e("form",{class:"card form",onSubmit:async v=>{v.preventDefault(),u.current?.(),l([]),h(""),d(null);const A=(await m.run(async()=>(await r.request(lr,{input:{agentId:t,message:s,async:!0}})).invokeAgent))?.run;A&&(d(A),u.current=r.subscribe(ir,{runId:A.id},{next:M=>{const W=M.agentRunEvents;l(O=>[...O,W]),W.delta&&h(O=>O+W.delta),W.kind==="FINISHED"&&(r.request(Ht,{id:A.id}).then(O=>O.agentRun&&d(O.agentRun),()=>{}),n())},error:M=>m.setErrors([{field:null,code:"STREAM",message:M.message}])}))},children:[e(ne,{label:"Message",name:"message",value:s,onInput:o,errors:m.errors,rows:3}),e(te,{errors:m.errors,fields:["message"]}),e("button",{type:"submit",class:"primary",disabled:m.busy,children:"Run agent"})]}),i&&e("div",{class:"card",children:[e("p",{children:["Run ",e("code",{children:i.id})," ",e(E,{tone:J(i.status),children:i.status})]}),S&&f!=="connected"&&e("p",{class:"muted",role:"status",children:f==="reconnecting"?"Reconnecting… the run goes on on the server; it is read again when the connection is back.":"Connecting…"}),e("ol",{class:"events","aria-label":"Run events","aria-live":"polite",children:a.map((v,k)=>e("li",{children:[e(E,{children:v.kind})," ",e("span",{class:"muted",children:G(v.at)}),v.step!==null&&v.step!==void 0&&e(w,{children:[" step ",v.step]}),v.toolId&&e(w,{children:[" ","tool ",e("code",{children:v.toolId})]}),v.toolCall&&e(w,{children:[" ",e(E,{tone:J(v.toolCall.status),children:v.toolCall.status})," ",Ee(v.toolCall.latencyMs)]}),v.kind==="FINISHED"&&v.run.error&&e(w,{children:[" ",v.run.error.message]})]},k))}),(i.output||c)&&e(w,{children:[e("h3",{children:"Answer"}),e("p",{class:"prose answer",children:i.output??c})]}),i.error&&e("p",{class:"error-text",children:i.error.message})]})]})}function bs({agent:t}){const n=t.runs.edges.map(({node:s})=>s),r=Rt("run");return e("section",{"aria-labelledby":"runs-title",children:[e("h2",{id:"runs-title",children:["Run history (",t.runs.totalCount,")"]}),n.length===0&&e("p",{class:"empty",children:"No run yet."}),n.map(s=>e("details",{id:s.id,class:"card run",open:s.id===r,children:[e("summary",{children:[e(E,{tone:J(s.status),children:s.status})," ",G(s.startedAt)," — ",s.input.slice(0,80)]}),e("dl",{class:"facts",children:[e("dt",{children:"Run"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Steps"}),e("dd",{children:s.steps}),e("dt",{children:"Tokens"}),e("dd",{children:[s.promptTokens??"—"," in, ",s.completionTokens??"—"," out"]}),e("dt",{children:"Answer"}),e("dd",{class:"prose",children:s.output??s.error?.message??"—"})]}),e("table",{class:"compact",children:[e("caption",{children:"Tool calls"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Arguments"})]})}),e("tbody",{children:s.toolCalls.map(o=>e("tr",{children:[e("td",{children:e("code",{children:o.toolId})}),e("td",{children:[e(E,{tone:J(o.status),children:o.status})," ",o.error?.code]}),e("td",{children:Ee(o.latencyMs)}),e("td",{children:e(Te,{label:`Arguments of ${o.id}`,value:o.arguments})})]},o.id))})]})]},s.id))]})}const zt=50;function _s(t){return t==="ACTIVE"?"good":"bad"}function ys(){const{api:t,can:n,viewer:r}=$(),[s,o]=p("ACTIVE"),[a,l]=p(!1),[i,d]=p(null),c=be(s),h=Z(()=>t.request(cr,{first:zt,after:c.after,state:s||null}),[s,c.after]),m=h.data?.apiKeys;return e(w,{children:[e(x,{title:"API keys",children:n.manageSome&&!a&&e("button",{type:"button",class:"primary",onClick:()=>l(!0),children:"Create API key"})}),e("dl",{class:"facts",children:[e("dt",{children:"Signed in with"}),e("dd",{children:[e("code",{children:r.keyId})," ",r.keyLabel?`“${r.keyLabel}”`:""," (",r.role,")"]})]}),!n.manageSome&&e("p",{children:"Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key."}),a&&e(Ss,{onDone:u=>{l(!1),u&&(d(u),h.reload())}}),i&&e("div",{class:"notice secret",role:"status",children:[e("p",{children:["Key ",e("code",{children:i.id})," created. Copy its secret now: it is shown only this once and is not stored."]}),e("label",{for:"new-secret",children:"Secret"}),e("input",{id:"new-secret",readOnly:!0,value:i.secret,onFocus:u=>u.currentTarget.select()}),e("div",{class:"buttons",children:[e("button",{type:"button",onClick:()=>{navigator.clipboard?.writeText(i.secret)},children:"Copy secret"}),e("button",{type:"button",onClick:()=>d(null),children:"Done"})]})]}),n.manageSome&&e(w,{children:[e("form",{class:"filters","aria-label":"Filter keys",onSubmit:u=>u.preventDefault(),children:e(U,{label:"State",name:"state",value:s,onChange:o,options:[["","Any state"],["ACTIVE","Active"],["EXPIRED","Expired"],["REVOKED","Revoked"]]})}),e(Y,{error:h.error,retry:h.reload}),m&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"API keys"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Role"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Expires"}),e("th",{scope:"col",children:"Last used"}),e("th",{scope:"col",children:"State"}),e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:m.edges.map(({node:u})=>e(vs,{apiKey:u,isCurrent:u.id===r.keyId,onChanged:h.reload},u.id))})]}),m.edges.length===0&&e("p",{class:"empty",children:"No key in this state."}),e(_e,{label:"API keys",pages:c,pageSize:zt,connection:m})]})]})]})}function vs({apiKey:t,isCurrent:n,onChanged:r}){const{api:s}=$(),[o,a]=p(!1),l=j(),i=t.label??t.id,d=async()=>{const c=await l.run(async()=>(await s.request(ur,{input:{id:t.id}})).revokeApiKey);a(!1),c&&r()};return e("tr",{children:[e("td",{children:[t.label??"—"," ",n&&e(E,{tone:"busy",children:"in use here"})]}),e("td",{children:e("code",{children:t.id})}),e("td",{children:t.role}),e("td",{children:t.space?.name??"every space"}),e("td",{children:G(t.createdAt)}),e("td",{children:G(t.expiresAt)}),e("td",{children:G(t.lastUsedAt)}),e("td",{children:e(E,{tone:_s(t.state),children:t.state})}),e("td",{children:[t.state==="ACTIVE"&&(o?e("div",{class:"buttons",children:[e("span",{children:[n?"This signs the console out. ":"","Revoke?"]}),e("button",{type:"button",class:"danger",onClick:d,disabled:l.busy,children:["Confirm revoke ",i]}),e("button",{type:"button",onClick:()=>a(!1),children:"Keep"})]}):e("button",{type:"button",onClick:()=>a(!0),"aria-label":`Revoke ${i}`,children:"Revoke"})),e(te,{errors:l.errors,fields:[]})]})]})}function Ss({onDone:t}){const{api:n,can:r,viewer:s}=$(),o=X(),a=r.admin?["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"]:["SPACE_ADMIN","MEMBER","VIEWER"],[l,i]=p("MEMBER"),[d,c]=p(s.space?.id??""),[h,m]=p(""),[u,f]=p(""),_=j(),y=o.data?.[0]?.id??"";return e(we,{label:"Create API key",onSubmit:async S=>{S.preventDefault();const g=await _.run(async()=>(await n.request(dr,{input:{role:l,spaceId:l==="ADMIN"?null:d||y||null,label:h||null,expiresAt:u?new Date(u).toISOString():null}})).createApiKey);g?.apiKey&&g.secret&&t({id:g.apiKey.id,secret:g.secret})},mutation:_,fields:["role","spaceId","label","expiresAt"],submitLabel:"Create key",cancel:()=>t(null),children:[e(U,{label:"Role",name:"role",value:l,onChange:i,errors:_.errors,options:a.map(S=>[S,S])}),r.admin&&l!=="ADMIN"&&e(U,{label:"Space",name:"spaceId",value:d,onChange:c,errors:_.errors,options:he(o.data)}),r.admin&&l!=="ADMIN"&&e(me,{spaces:o}),e(C,{label:"Label",name:"label",value:h,onInput:m,errors:_.errors,hint:"A note to recognise the key by."}),e(C,{label:"Expires",name:"expiresAt",value:u,onInput:f,errors:_.errors,type:"datetime-local",hint:"Your local time; empty: never."})]})}const Jt=3e3,ws=3e4,Is=1e4,ks=2e3,mt=50,An="quiver.approvals.space",St="quiver:approvals-space",wt="quiver:approvals-count";function tt(){return window.localStorage.getItem(An)??""}function Cs(t){tt()!==t&&(window.localStorage.setItem(An,t),window.dispatchEvent(new Event(St)))}function As(t){window.dispatchEvent(new CustomEvent(wt,{detail:t}))}function $n(){const[t,n]=p(()=>document.visibilityState==="visible");return R(()=>{const r=()=>n(document.visibilityState==="visible");return document.addEventListener("visibilitychange",r),()=>document.removeEventListener("visibilitychange",r)},[]),t}function $s(t,n){const r=$n(),[s,o]=p(!1);R(()=>{if(!r){o(!0);return}s&&(o(!1),t());const a=window.setInterval(t,n);return()=>window.clearInterval(a)},[r,t,n,s])}function Ts(t,n){const{api:r}=$(),[s,o]=p("connecting"),[a,l]=p(!1);R(()=>r.onSocketState(o),[r]);const i=s==="connected";return R(()=>{if(t)return l(!1),r.subscribe(gr,{spaceId:t},{next:()=>n(),error:()=>l(!0),complete:()=>l(!0)})},[r,t,n]),R(()=>{i&&n()},[i,n]),!!t&&i&&!a}function Es(t){const[n,r]=p(()=>Date.now());return R(()=>{const s=window.setInterval(()=>r(Date.now()),t);return()=>window.clearInterval(s)},[t]),n}function Zt(t){const n=Math.max(0,Math.floor(t/1e3));if(n<60)return`${n} s`;const r=Math.floor(n/60);if(r<60)return`${r} min`;const s=Math.floor(r/60);if(s<24)return r%60?`${s} h ${r%60} min`:`${s} h`;const o=Math.floor(s/24);return s%24?`${o} d ${s%24} h`:`${o} d`}function Rs(){const{api:t,viewer:n,can:r}=$(),s=X(),o=Rt("space"),[a,l]=p(o??n.space?.id??tt()),i=he(s.data),d=s.data===null||i.some(([k])=>k===a)?a:i[0]?.[0]??"",c=be(d),[h,m]=p(null);R(()=>{d&&Cs(d)},[d]);const u=k=>{l(k),m(null);const A=new URLSearchParams(window.location.search);A.set("space",k),window.history.replaceState(null,"",`${window.location.pathname}?${A.toString()}`)},f=Z(async()=>{if(!d)return null;const k=await t.request(pr,{spaceId:d,first:mt,after:c.after});return{spaceId:d,connection:k.pendingApprovals}},[d,c.after]),_=Ts(d,f.reload);$s(f.reload,_?ws:Jt);const y=Es(1e3),b=f.data&&f.data.spaceId===d?f.data.connection:null,S=b?.edges.filter(({node:k})=>!k.approval||Date.parse(k.approval.expiresAt)>y),g=b&&S&&{...b,edges:S,totalCount:b.totalCount-(b.edges.length-S.length)};R(()=>{f.data&&As({spaceId:f.data.spaceId,count:f.data.connection.totalCount})},[f.data]);const v=r.manage(d);return e(w,{children:[e(x,{title:"Approvals"}),e("form",{class:"filters","aria-label":"Filter approvals",onSubmit:k=>k.preventDefault(),children:e(U,{label:"Space",name:"space",value:d,onChange:u,options:i})}),e("p",{class:"hint",children:["Tool calls of agent runs that wait for a person, oldest first; the list follows new requests and decisions by itself."," ",v?"Approved, a call runs and its run continues; rejected, it does not run and the model is told why.":"Read only: a SPACE_ADMIN of this space or an ADMIN decides."]}),e(lt,{loads:[s,f]}),h&&e(Re,{children:h}),e("p",{class:"muted",children:_?"Live: requests and decisions appear as they happen.":`Not live: checking every ${Jt/1e3} s while this page is visible.`}),g&&e(w,{children:[e("p",{class:"muted","aria-live":"polite",children:g.totalCount===0?"Nothing waits for a decision in this space.":`${g.totalCount.toLocaleString()} call${g.totalCount===1?"":"s"} waiting.`}),g.edges.map(({node:k})=>e(Ds,{call:k,now:y,mayDecide:v,onDecided:A=>{m(A),f.reload()}},k.id)),g.totalCount>mt&&e(_e,{label:"Approvals",pages:c,pageSize:mt,connection:g})]})]})}function Ds({call:t,now:n,mayDecide:r,onDecided:s}){const{api:o}=$(),[a,l]=p(""),i=j(),d=t.tool?.name??t.toolId,c=t.approval?Date.parse(t.approval.requestedAt):Number.NaN,h=t.approval?Date.parse(t.approval.expiresAt):Number.NaN,m=i.errors.map(f=>at([f],"reason").length?{...f,field:[...(f.field??[]).slice(0,-1),"comment"]}:f),u=async f=>{const _=a.trim()?a:null,y=f?await i.run(async()=>(await o.request(mr,{input:{toolCallId:t.id,comment:_}})).approveToolCall):await i.run(async()=>(await o.request(fr,{input:{toolCallId:t.id,reason:_}})).rejectToolCall);if(y){const b=y.run?` Run ${y.run.id} is ${y.run.status}.`:"";s(`${f?"Approved":"Rejected"} ${d} (${t.id}).${b}`)}};return e("section",{class:"card approval","aria-label":`Approval ${t.id}`,children:[e("h2",{children:[e("code",{children:d})," ",t.agent&&e("span",{class:"muted",children:["for agent ",t.agent.name]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:[e(T,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.tool?.label??t.toolId})," ",e("code",{class:"muted",children:t.toolId})]}),e("dt",{children:"Agent"}),e("dd",{children:t.agent?e(T,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}):"—"}),e("dt",{children:"Run"}),e("dd",{children:t.run&&t.agent?e(w,{children:[e(T,{to:`/agents/${encodeURIComponent(t.agent.id)}?run=${encodeURIComponent(t.run.id)}`,"aria-label":`Run ${t.run.id}`,children:e("code",{children:t.run.id})})," ",e(E,{tone:J(t.run.status),children:t.run.status})]}):t.run?.id??"—"}),e("dt",{children:"Call"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:"Requested"}),e("dd",{children:[G(t.approval?.requestedAt),Number.isFinite(c)&&e(w,{children:[" · waiting ",Zt(n-c)]})]}),e("dt",{children:"Expires"}),e("dd",{children:[G(t.approval?.expiresAt),Number.isFinite(h)&&(h>n?e(w,{children:[" · in ",Zt(h-n)]}):e(w,{children:" · expired"}))]})]}),e("h3",{children:"Proposed arguments"}),e(Te,{label:`Proposed arguments of ${t.id}`,value:t.arguments}),r&&e("form",{class:"decision","aria-label":`Decide on ${t.id}`,onSubmit:f=>f.preventDefault(),children:[e(ne,{label:"Comment",name:"comment",value:a,onInput:l,errors:m,rows:2,hint:`Optional: kept on the call, and told to the model when rejected. ${a.length.toLocaleString()} of ${ks.toLocaleString()} characters.`}),e(te,{errors:m,fields:["comment"]}),e("div",{class:"buttons",children:[e("button",{type:"button",class:"primary",disabled:i.busy,onClick:()=>{u(!0)},children:"Approve"}),e("button",{type:"button",class:"danger",disabled:i.busy,onClick:()=>{u(!1)},children:"Reject"})]})]})]})}function Ps(){const{api:t,viewer:n,can:r}=$(),[s,o]=p(tt),a=n.space?.id??s,l=a!==""&&r.manage(a),i=$n(),[d,c]=p(null);if(R(()=>{const m=()=>o(tt());return window.addEventListener(St,m),()=>window.removeEventListener(St,m)},[]),R(()=>{if(!l||!i)return;let m=!0;const u=()=>t.request(hr,{spaceId:a}).then(y=>m&&c({spaceId:a,count:y.pendingApprovals.totalCount}),()=>{});u();const f=window.setInterval(()=>{u()},Is),_=y=>{const b=y.detail;b.spaceId===a&&c(b)};return window.addEventListener(wt,_),()=>{m=!1,window.clearInterval(f),window.removeEventListener(wt,_)}},[t,a,l,i]),!l||d===null||d.spaceId!==a||d.count===0)return null;const h=`${d.count} pending approval${d.count===1?"":"s"}`;return e("span",{class:"badge busy nav-count",title:h,children:[e("span",{"aria-hidden":"true",children:d.count}),e("span",{class:"sr-only",children:h})]})}const Qt=50,It=[".md",".markdown",".txt",".html",".htm"];function Ns({sub:t}){return t==="new"?e(xs,{}):t?e(Ms,{id:decodeURIComponent(t)}):e(Ls,{})}function Ls(){const{api:t,can:n,viewer:r}=$(),s=be("kbs"),o=Z(()=>t.request(yr,{first:Qt,after:s.after}),[s.after]),a=X(),l=o.data?.knowledgeBases;return e(w,{children:[e(x,{title:"Knowledge",children:n.manageSome&&e(T,{class:"button primary",to:"/knowledge/new",children:"Create knowledge base"})}),e(lt,{loads:r.space?[o]:[o,a]}),l&&e(w,{children:[e("table",{children:[e("caption",{children:"Knowledge bases"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Documents"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:l.edges.map(({node:i})=>e("tr",{children:[e("td",{children:e(T,{to:`/knowledge/${encodeURIComponent(i.id)}`,children:i.label})}),e("td",{children:e("code",{children:i.name})}),e("td",{children:i.space.name}),e("td",{children:i.documentCount}),e("td",{children:G(i.createdAt)})]},i.id))})]}),l.edges.length===0&&e("p",{class:"empty",children:"No knowledge base yet."}),e(_e,{label:"Knowledge bases",pages:s,pageSize:Qt,connection:l}),e(Tn,{spaces:a,bases:l.edges.map(({node:i})=>({id:i.id,label:i.label,spaceId:i.space.id}))})]})]})}function xs(){const{api:t,can:n,viewer:r}=$(),s=X(),[o,a]=p(r.space?.id??""),[l,i]=p(""),[d,c]=p(""),[h,m]=p(""),u=j();return n.manageSome?e(w,{children:[e(x,{title:"Create knowledge base"}),e(we,{onSubmit:async _=>{_.preventDefault();const y=await u.run(async()=>(await t.request(Sr,{input:{spaceId:o||s.data?.[0]?.id||"",name:l,label:d,description:h||null}})).createKnowledgeBase);y?.knowledgeBase&&ge(ie(`/knowledge/${encodeURIComponent(y.knowledgeBase.id)}`))},mutation:u,fields:["spaceId","name","label","description"],submitLabel:"Create knowledge base",cancel:"/knowledge",children:[n.admin&&e(U,{label:"Space",name:"spaceId",value:o,onChange:a,errors:u.errors,options:he(s.data)}),n.admin&&e(me,{spaces:s}),e(C,{label:"Name",name:"name",value:l,onInput:i,errors:u.errors,hint:"Unique in the space: ^[a-zA-Z0-9_-]{1,64}$."}),e(C,{label:"Label",name:"label",value:d,onInput:c,errors:u.errors}),e(ne,{label:"Description",name:"description",value:h,onInput:m,errors:u.errors,rows:2})]})]}):e("p",{children:"This key cannot create knowledge bases."})}function Ms({id:t}){const{api:n,can:r,viewer:s}=$(),o=Z(()=>n.request(vr,{id:t}),[t]),a=X(),l=o.data?.node,i=l?.__typename==="KnowledgeBase"?l:null;if(o.data&&!i)return e(w,{children:[e(x,{title:"Knowledge base not found"}),e("p",{children:["No knowledge base ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/knowledge",children:"Back to Knowledge"})]})]});const d=i?.documents??null;return e(w,{children:[e(x,{title:i?`Knowledge base ${i.label}`:"Knowledge base",children:e(T,{class:"button",to:"/knowledge",children:"All knowledge bases"})}),e(lt,{loads:s.space?[o]:[o,a]}),i&&e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:i.name})}),e("dt",{children:"Space"}),e("dd",{children:i.space.name}),e("dt",{children:"Description"}),e("dd",{children:i.description??"—"})]}),i&&r.manage(i.space.id)&&e(Bs,{knowledgeBaseId:t,onAdded:o.reload}),d&&e("table",{children:[e("caption",{children:["Documents (",d.totalCount,")"]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Title"}),e("th",{scope:"col",children:"Source"}),e("th",{scope:"col",children:"Chunks"}),e("th",{scope:"col",children:"Added"})]})}),e("tbody",{children:d.edges.map(({node:c})=>e("tr",{children:[e("td",{children:c.title}),e("td",{children:c.source??"—"}),e("td",{children:c.chunkCount}),e("td",{children:G(c.createdAt)})]},c.id))})]}),i&&e(Tn,{spaces:a,bases:[{id:i.id,label:i.label,spaceId:i.space.id}]})]})}async function qs(t){const n=t.name.toLowerCase();if(!It.some(a=>n.endsWith(a)))throw new Error(`${t.name}: only ${It.join(" ")} files are read here (PDF: quiver kb ingest).`);const r=await t.text(),s=t.name.replace(/\.[^.]+$/,"");if(n.endsWith(".html")||n.endsWith(".htm")){const a=new DOMParser().parseFromString(r,"text/html"),l=[];return a.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach(i=>{const d=i.textContent?.trim();if(!d)return;const c=/^H([1-6])$/.exec(i.tagName)?.[1];l.push(c?`${"#".repeat(Number(c))} ${d}`:d)}),{title:a.title.trim()||s,text:l.join(`

`)}}return{title:/^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(r)?.[1]?.trim()||s,text:r}}function Bs({knowledgeBaseId:t,onAdded:n}){const{api:r}=$(),[s,o]=p([]),[a,l]=p(!1),i=async d=>{if(!d?.length)return;l(!0);const c=[];for(const h of Array.from(d))try{const{title:m,text:u}=await qs(h),f=(await r.request(wr,{input:{knowledgeBaseId:t,title:m,text:u,source:h.name}})).addDocument;c.push(f.userErrors.length?`${h.name}: ${f.userErrors.map(_=>_.message).join(" ")}`:`${h.name}: ${f.outcome?.toLowerCase()}, ${f.document?.chunkCount} chunks`)}catch(m){c.push(re(m))}o(c),l(!1),n()};return e("section",{"aria-labelledby":"upload-title",class:"card",children:[e("h2",{id:"upload-title",children:"Upload files"}),e("div",{class:"field",children:[e("label",{for:"upload-files",children:"Files (.md, .txt, .html)"}),e("input",{id:"upload-files",type:"file",multiple:!0,accept:It.join(","),disabled:a,onChange:d=>i(d.currentTarget.files)}),e("p",{class:"hint",children:"The same file name again replaces that document."})]}),s.length>0&&e(Re,{children:e("ul",{class:"plain",children:s.map(d=>e("li",{children:d},d))})})]})}function Tn({bases:t,spaces:n}){const{api:r,viewer:s}=$(),[o,a]=p(s.space?.id??t[0]?.spaceId??""),[l,i]=p(""),[d,c]=p("5"),[h,m]=p([]),[u,f]=p(null),[_,y]=p(null),b=t.filter(g=>g.spaceId===o);return e("section",{"aria-labelledby":"search-title",children:[e("h2",{id:"search-title",children:"Search playground"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault(),y(null);try{const v=await r.request(Ir,{spaceId:o,query:l,topK:Number(d)||5,knowledgeBaseIds:h.length?h.filter(k=>b.some(A=>A.id===k)):null});f(v.searchKnowledge)}catch(v){y(re(v))}},role:"search","aria-label":"Search knowledge",children:[!s.space&&e(U,{label:"Space",name:"spaceId",value:o,onChange:a,options:he(n.data)}),e(C,{label:"Query",name:"query",value:l,onInput:i}),e(C,{label:"Results",name:"topK",value:d,onInput:c,type:"number"}),b.length>1&&e($e,{legend:"Only these knowledge bases",name:"knowledgeBaseIds",options:b.map(g=>({value:g.id,label:g.label})),selected:h,onChange:m}),e("div",{class:"buttons",children:e("button",{type:"submit",children:"Search"})})]}),_&&e("p",{class:"form-errors",role:"alert",children:_}),u&&e("ol",{class:"hits","aria-label":"Search results",children:[u.length===0&&e("li",{children:"No passage matches."}),u.map(g=>e("li",{class:"card",children:[e("p",{class:"hit-meta",children:[e("span",{class:"score",children:["score ",g.score.toFixed(4)]})," · ",e("strong",{children:g.document.title}),g.headingPath.length>0&&e(w,{children:[" › ",g.headingPath.join(" › ")]})]}),e("blockquote",{children:g.text}),e("p",{class:"citation",children:["Cite: ",g.document.title,g.source?`, ${g.source}`:"",", passage ",g.chunkIndex+1]})]},`${g.document.id}-${g.chunkIndex}`))]})]})}const Je=500,Yt=100,Us=["EVENTS_MISSED","EVENT_BUS_UNAVAILABLE","SUBSCRIBER_OVERFLOW"],Os=15e3;function nt(t){const n=/\.(\d+)/.exec(t)?.[1]??"";return Date.parse(t)*1e3+Number(n.slice(3,6).padEnd(3,"0"))}function Xt(t,n){const[r,s]=[nt(t.at),nt(n.startedAt)];return s>r?{at:n.startedAt,ids:[n.id]}:s===r&&!t.ids.includes(n.id)?{...t,ids:[...t.ids,n.id]}:t}function Ks(t,n){const r=[...n].reverse(),s=[];for(const o of t){for(;r.length&&nt(r[0].startedAt)>nt(o.startedAt);)s.push(r.shift());s.push(o)}return[...s,...r].slice(0,Je)}function Vs(){const{api:t}=$(),n=X(),[r,s]=p(""),[o,a]=p(""),[l,i]=p(""),[d,c]=p([]),[h,m]=p([]),[u,f]=p(!1),[_,y]=p(null),b=ee(null),[S,g]=p("connecting"),[v,k]=p(null),[A,M]=p({kind:"idle"}),W=ee(u);W.current=u;const O=ee({calls:d,held:h});O.current={calls:d,held:h};const P=o.trim(),D=ee({}),V=ee({at:new Date().toISOString(),ids:[]}),Q=ee(null),z=ee(S);z.current=S;const[ce,Oe]=p(0),se=ee(0),[q,ye]=p(null),de=ee("");R(()=>t.onSocketState(g),[t]),R(()=>{k(null),ye(null);const N={spaceId:r||null,toolId:P||null,status:l||null},oe=JSON.stringify(N);oe!==de.current&&(de.current=oe,M({kind:"idle"}),D.current=N,V.current={at:new Date().toISOString(),ids:[]},Q.current=null,se.current=0);let ve;const ke=t.subscribe(br,{filter:N},{next:ae=>{const le=ae.toolCalls;se.current=0,V.current=Xt(V.current,le),W.current?m(ue=>[le,...ue].slice(0,Je)):c(ue=>[le,...ue].slice(0,Je))},error:ae=>{if(!(ae instanceof Ln)||!ae.code||!Us.includes(ae.code)){k(ae.message);return}Q.current===null&&(Q.current=V.current),ye(ae.code==="EVENT_BUS_UNAVAILABLE"?"The server cannot follow the calls of all its replicas right now; trying again…":"The live feed was interrupted; subscribing again…");const le=Math.min(1e3*2**se.current,Os);se.current+=1,ve=window.setTimeout(()=>Oe(ue=>ue+1),le)}});return Q.current!==null&&z.current==="connected"&&Ie(),()=>{window.clearTimeout(ve),ke()}},[t,r,P,l,ce]);const Ie=qe(async()=>{const N=Q.current;if(N===null)return;const oe=D.current;M({kind:"running"});let ve;try{const K={filter:{...oe,since:N.at},first:Yt};ve=(await t.request(_r,K)).toolCalls}catch(K){D.current===oe&&!(K instanceof rt)&&M({kind:"failed",message:re(K)});return}if(D.current!==oe)return;const ke=ve.edges.map(({node:K})=>K).filter(K=>K.status!=="PENDING_APPROVAL"&&!N.ids.includes(K.id));for(const K of ke)V.current=Xt(V.current,K);const ae=new Set([...O.current.calls,...O.current.held].map(K=>K.id)),le=ke.filter(K=>!ae.has(K.id)),ue=K=>Ks(K,le.filter(Ke=>!K.some(Ve=>Ve.id===Ke.id)));W.current?m(ue):c(ue),z.current==="connected"&&Q.current===N&&(Q.current=null),M(ve.pageInfo.hasNextPage?{kind:"partial"}:{kind:"idle"})},[t]);R(()=>{S==="reconnecting"&&Q.current===null&&(Q.current=V.current),S==="connected"&&Q.current!==null&&Ie()},[S,Ie]);const it=S==="connected"&&Q.current!==null&&A.kind!=="failed";return e(w,{children:[e(x,{title:"Live calls",children:[u?e("button",{type:"button",onClick:()=>{c(N=>[...h,...N].slice(0,Je)),m([]),f(!1)},children:["Resume (",h.length," waiting)"]}):e("button",{type:"button",onClick:()=>f(!0),children:"Pause"}),e("button",{type:"button",onClick:()=>{c([]),A.kind==="partial"&&M({kind:"idle"})},children:"Clear"})]}),e("p",{class:"muted",role:"status",children:[S==="reconnecting"?"Reconnecting… the live connection dropped; the calls that finish meanwhile are read from the call log once it is back.":q||(S==="connected"?it?"Listening. Reading the calls that finished while the connection was down…":"Listening: every finished call appears here as it happens.":S==="connecting"?"Connecting…":"Disconnected."),u&&" Paused: new calls wait until you resume."]}),v&&e("p",{class:"form-errors",role:"alert",children:v}),e(Y,{error:A.kind==="failed"?`The calls that finished while the connection was down could not be read: ${A.message}`:null,retry:()=>{Ie()}}),A.kind==="partial"&&e(Re,{children:["Not every call that finished while the connection was down is shown: the oldest ",Yt," in the call log were read, the later ones are only there (the toolCalls query)."]}),e("form",{class:"filters","aria-label":"Filter live calls",onSubmit:N=>N.preventDefault(),children:[e(U,{label:"Space",name:"spaceId",value:r,onChange:s,options:[["","Every space"],...he(n.data)]}),e(C,{label:"Tool id",name:"toolId",value:o,onInput:a,placeholder:"e.g. bt_calculator"}),e(U,{label:"Status",name:"status",value:l,onChange:i,options:[["","Any status"],["SUCCESS","Success"],["FAILED","Failed"]]})]}),e(me,{spaces:n}),e("table",{class:"live",children:[e("caption",{class:"sr-only",children:"Live tool calls, newest first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Started"}),e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Caller"}),e("th",{scope:"col",children:"Call"})]})}),e("tbody",{children:d.map(N=>e("tr",{class:_?.id===N.id?"selected":void 0,children:[e("td",{children:G(N.startedAt)}),e("td",{children:e("code",{children:N.toolId})}),e("td",{children:N.space.name}),e("td",{children:[e(E,{tone:J(N.status),children:N.status})," ",N.error?.code]}),e("td",{children:Ee(N.latencyMs)}),e("td",{children:N.agent?`agent ${N.agent.name}`:"direct"}),e("td",{children:e("button",{type:"button",onClick:oe=>{b.current=oe.currentTarget,y(N)},"aria-label":`Open call ${N.id}`,children:"Open"})})]},N.id))})]}),d.length===0&&e("p",{class:"empty",children:"No call yet. Calls made anywhere — the API, agents, other consoles — show up here."}),_&&e(Fs,{call:_,onClose:()=>{y(null),b.current?.isConnected&&b.current.focus()}})]})}function Fs({call:t,onClose:n}){const r=ee(null);return R(()=>r.current?.focus(),[t.id]),e("section",{class:"card call-detail","aria-labelledby":"call-title",onKeyDown:s=>{s.key==="Escape"&&(s.preventDefault(),n())},children:[e("h2",{id:"call-title",tabIndex:-1,ref:r,children:["Call ",t.id]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:e(T,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.toolId})}),e("dt",{children:"Status"}),e("dd",{children:e(E,{tone:J(t.status),children:t.status})}),e("dt",{children:"Space"}),e("dd",{children:t.space.name}),e("dt",{children:"Started"}),e("dd",{children:G(t.startedAt)}),e("dt",{children:"Latency"}),e("dd",{children:[Ee(t.latencyMs),", ",t.attempts," attempt",t.attempts===1?"":"s"]}),e("dt",{children:"Trace id"}),e("dd",{children:e("code",{children:t.traceId})}),e("dt",{children:"Idempotency key"}),e("dd",{children:t.idempotencyKey??"—"}),e("dt",{children:"Caller"}),e("dd",{children:t.agent?e(w,{children:["agent ",e(T,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}),t.run&&e(w,{children:[", run ",e("code",{children:t.run.id})]})]}):"a direct call"})]}),e("h3",{children:"Arguments"}),e(Te,{label:"Arguments",value:t.arguments}),t.error?e(w,{children:[e("h3",{children:"Error"}),e("p",{children:[e("code",{children:t.error.code})," ",t.error.message]}),t.error.detail&&e("pre",{class:"json",children:t.error.detail})]}):e(w,{children:[e("h3",{children:"Result"}),e(Te,{label:"Result",value:t.result})]}),e("button",{type:"button",onClick:n,children:"Close call"})]})}const ft=20,en=100;function Hs(){const{api:t,can:n}=$(),r=be("mcp"),s=Z(()=>t.request(kr,{first:ft,after:r.after}),[r.after]),[o,a]=p(!1),l=s.data?.mcpServers;return e(w,{children:[e(x,{title:"MCP servers",children:n.admin&&!o&&e("button",{type:"button",class:"primary",onClick:()=>a(!0),children:"Register MCP server"})}),o&&e(Ws,{onDone:i=>{a(!1),i&&s.reload()}}),e(Y,{error:s.error,retry:s.reload}),l&&l.edges.length===0&&e("p",{class:"empty",children:"No MCP server is registered."}),l?.edges.map(({node:i})=>e(js,{server:i,onChanged:s.reload},i.id)),l&&l.totalCount>ft&&e(_e,{label:"MCP servers",pages:r,pageSize:ft,connection:l})]})}function js({server:t,onChanged:n}){const{api:r,can:s}=$(),o=j(),a=j(),[l,i]=p(null),d=be(`mcp-tools-${t.id}`),c=Z(()=>r.request(Cr,{id:t.id,after:d.after}),[t.id,d.after]),h=c.data?.node&&"tools"in c.data.node?c.data.node.tools:null,m=h?.edges.filter(({node:b})=>b.driftedAt)??[],u=()=>{c.reload(),n()},f=async()=>{i(null);const b=await o.run(async()=>(await r.request($r,{id:t.id})).syncMcpServer);b?.syncReport&&i(b.syncReport),u()},_=async(b,S)=>{await a.run(async()=>(await r.request(Tt,{input:{id:b,status:S}})).setStatus)&&u()},y=`server-${t.id}`;return e("section",{class:"card","aria-labelledby":y,children:[e("h2",{id:y,children:[t.name," ",e(E,{tone:J(t.status),children:t.status})," ",e(E,{children:t.transport}),m.length>0&&e(E,{tone:"bad",children:[m.length," drifted"]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Id"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:t.url?"URL":"Command"}),e("dd",{children:e("code",{children:t.url??t.command?.join(" ")})}),e("dt",{children:"Visible in"}),e("dd",{children:t.isGlobal?"every space (global)":t.boundSpaces.map(b=>b.name).join(", ")}),e("dt",{children:"Last sync"}),e("dd",{children:G(t.lastSyncedAt)}),t.lastError&&e(w,{children:[e("dt",{children:"Last error"}),e("dd",{class:"error-text",children:t.lastError})]})]}),s.admin&&e("div",{class:"buttons",children:[e("button",{type:"button",onClick:f,disabled:o.busy,children:o.busy?"Syncing…":`Sync ${t.name}`}),t.status==="ACTIVE"?e("button",{type:"button",onClick:()=>_(t.id,"DISABLED"),disabled:a.busy,children:"Disable server"}):e("button",{type:"button",onClick:()=>_(t.id,"ACTIVE"),disabled:a.busy,children:"Re-activate server"})]}),e(te,{errors:[...o.errors,...a.errors],fields:[]}),l&&e(Gs,{report:l}),e("h3",{children:["Tools",h?` (${h.totalCount})`:""]}),e(Y,{error:c.error,retry:c.reload}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:["Tools of ",t.name]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Drift"}),s.admin&&e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:h?.edges.map(({node:b})=>e("tr",{children:[e("td",{children:e(T,{to:`/tools/${encodeURIComponent(b.id)}`,children:b.name})}),e("td",{children:e(E,{tone:J(b.status),children:b.status})}),e("td",{children:b.driftedAt?e(E,{tone:"bad",children:["drifted ",G(b.driftedAt)]}):"—"}),s.admin&&e("td",{children:b.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>_(b.id,"ACTIVE"),disabled:a.busy,"aria-label":`Re-activate ${b.name}`,children:"Re-activate"})})]},b.id))})]}),h&&h.totalCount>en&&e(_e,{label:`Tools of ${t.name}`,pages:d,pageSize:en,connection:h})]})}function Gs({report:t}){const n=[["Added",t.added],["Changed",t.updated],["Disabled",t.disabled],["Drifted",t.drifted],["Re-activated",t.reactivated],["Vanished",t.vanished],["Skipped",t.skipped]];return e("div",{class:"result",role:"status","aria-label":"Sync result",children:[e("p",{children:["Synced: ",t.added.length," added, ",t.updated.length," changed, ",t.disabled.length," disabled,"," ",t.unchanged.length," unchanged (",t.pages," page",t.pages===1?"":"s",")."]}),e("dl",{class:"facts",children:n.filter(([,r])=>r.length).map(([r,s])=>e(w,{children:[e("dt",{children:r},`${r}-t`),e("dd",{children:s.join(", ")},`${r}-d`)]}))})]})}function Ws({onDone:t}){const{api:n}=$(),r=X(),[s,o]=p(""),[a,l]=p("STREAMABLE_HTTP"),[i,d]=p(""),[c,h]=p(""),[m,u]=p("NONE"),[f,_]=p(""),[y,b]=p(""),[S,g]=p([]),v=j();return e(we,{label:"Register MCP server",onSubmit:async A=>{A.preventDefault(),await v.run(async()=>(await n.request(Ar,{input:{name:s,transport:a,url:a==="STDIO"?null:i,command:a==="STDIO"?c.split(/\s+/).filter(Boolean):null,auth:m==="NONE"?null:{type:m,headerName:f||null,secret:y||null},spaceIds:S.length?S:null}})).registerMcpServer)&&t(!0)},mutation:v,fields:["name","transport","url","command","auth","auth.type","auth.headerName","auth.secret","spaceIds"],submitLabel:"Register server",cancel:()=>t(!1),children:[e(C,{label:"Name",name:"name",value:s,onInput:o,errors:v.errors,hint:"^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}."}),e(U,{label:"Transport",name:"transport",value:a,onChange:l,errors:v.errors,options:[["STREAMABLE_HTTP","Streamable HTTP"],["SSE","HTTP + SSE (older)"],["STDIO","Local process (stdio)"]]}),a==="STDIO"?e(C,{label:"Command",name:"command",value:c,onInput:h,errors:v.errors,hint:"The program and its arguments, separated by spaces."}):e(C,{label:"URL",name:"url",value:i,onInput:d,errors:v.errors,type:"url"}),e(U,{label:"Authentication",name:"auth.type",value:m,onChange:u,errors:v.errors,options:[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"]]}),(m==="API_KEY"||m==="HEADER")&&e(C,{label:"Header name",name:"auth.headerName",value:f,onInput:_,errors:v.errors}),m!=="NONE"&&e(C,{label:"Secret",name:"auth.secret",value:y,onInput:b,errors:v.errors,type:"password",autoComplete:"new-password",hint:"Write-only: stored encrypted, never shown again."}),e($e,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(r.data??[]).map(A=>({value:A.id,label:`${A.label} (${A.name})`})),selected:S,onChange:g,errors:v.errors}),e(me,{spaces:r})]})}const zs=4e6;function Js(t,n){const r=t.split(`
`),s=n.split(`
`);if(r.length*s.length>zs)return[...r.map(d=>({kind:"removed",text:d})),...s.map(d=>({kind:"added",text:d}))];const o=Array.from({length:r.length+1},()=>new Uint32Array(s.length+1));for(let d=r.length-1;d>=0;d-=1)for(let c=s.length-1;c>=0;c-=1)o[d][c]=r[d]===s[c]?o[d+1][c+1]+1:Math.max(o[d+1][c],o[d][c+1]);const a=[];let l=0,i=0;for(;l<r.length&&i<s.length;)r[l]===s[i]?(a.push({kind:"same",text:r[l]}),l+=1,i+=1):o[l+1][i]>=o[l][i+1]?(a.push({kind:"removed",text:r[l]}),l+=1):(a.push({kind:"added",text:s[i]}),i+=1);for(;l<r.length;l+=1)a.push({kind:"removed",text:r[l]});for(;i<s.length;i+=1)a.push({kind:"added",text:s[i]});return a}const tn=50;function Zs({sub:t}){return t==="new"?e(Ys,{}):t==="import"?e(Xs,{}):t?e(eo,{id:decodeURIComponent(t)}):e(Qs,{})}function Qs(){const{api:t,can:n}=$(),[r,s]=p(""),[o,a]=p(""),l=be(o),i=Z(()=>t.request(Tr,{first:tn,after:l.after,filter:o?{search:o}:null}),[o,l.after]),d=i.data?.skills;return e(w,{children:[e(x,{title:"Skills",children:n.manageSome&&e(w,{children:[e(T,{class:"button primary",to:"/skills/new",children:"Create skill"}),e(T,{class:"button",to:"/skills/import",children:"Import SKILL.md"})]})}),e("form",{class:"filters",role:"search","aria-label":"Filter skills",onSubmit:c=>{c.preventDefault(),a(r.trim())},children:[e(C,{label:"Search",name:"search",value:r,onInput:s}),e("button",{type:"submit",children:"Filter"})]}),e(Y,{error:i.error,retry:i.reload}),d&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Skills"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Scope"}),e("th",{scope:"col",children:"Production"}),e("th",{scope:"col",children:"Candidate"}),e("th",{scope:"col",children:"Status"})]})}),e("tbody",{children:d.edges.map(({node:c})=>e("tr",{children:[e("td",{children:e(T,{to:`/skills/${encodeURIComponent(c.id)}`,children:c.name})}),e("td",{children:c.label}),e("td",{children:c.space?c.space.name:"global"}),e("td",{children:c.version}),e("td",{children:c.candidateVersion?`${c.candidateVersion} (${c.canaryPercent}% of sessions)`:"—"}),e("td",{children:e(E,{tone:J(c.status),children:c.status})})]},c.id))})]}),e(_e,{label:"Skills",pages:l,pageSize:tn,connection:d})]}),e(ao,{})]})}function En({value:t,onChange:n,allowGlobal:r,errors:s}){const o=X(),a=[...r?[["","Global (every space)"]]:[],...he(o.data)];return e(w,{children:[e(U,{label:"Space",name:"spaceId",value:t,onChange:n,options:a,errors:s}),e(me,{spaces:o})]})}function Ys(){const{api:t,can:n,viewer:r}=$(),[s,o]=p(r.space?.id??""),[a,l]=p(""),[i,d]=p(""),[c,h]=p(""),[m,u]=p(""),[f,_]=p(""),[y,b]=p(""),S=j();return n.manageSome?e(w,{children:[e(x,{title:"Create skill"}),e(we,{wide:!0,onSubmit:async v=>{v.preventDefault();const k=await S.run(async()=>(await t.request(Dr,{input:{spaceId:s||null,name:a,label:i,description:c,prompt:m,triggerHints:f.split(",").map(A=>A.trim()).filter(Boolean),boundary:y||null}})).createSkill);k?.skill&&ge(ie(`/skills/${encodeURIComponent(k.skill.id)}`))},mutation:S,fields:["spaceId","name","label","description","prompt","triggerHints","boundary"],submitLabel:"Create skill",cancel:"/skills",children:[n.admin&&e(En,{value:s,onChange:o,allowGlobal:!0,errors:S.errors}),e(C,{label:"Name",name:"name",value:a,onInput:l,errors:S.errors,hint:"1-64 of a-z, 0-9 and single hyphens."}),e(C,{label:"Label",name:"label",value:i,onInput:d,errors:S.errors}),e(C,{label:"Description",name:"description",value:c,onInput:h,errors:S.errors}),e(ne,{label:"Prompt",name:"prompt",value:m,onInput:u,errors:S.errors,rows:10,mono:!0,hint:"Markdown methodology; becomes version 1.0.0 in PRODUCTION."}),e(C,{label:"Trigger hints",name:"triggerHints",value:f,onInput:_,errors:S.errors,hint:"Comma-separated phrases that signal the skill applies."}),e(C,{label:"Boundary",name:"boundary",value:y,onInput:b,errors:S.errors,hint:"What the skill must not be used for."})]})]}):e("p",{children:"This key cannot create skills."})}function Xs(){const{api:t,can:n,viewer:r}=$(),[s,o]=p(r.space?.id??""),[a,l]=p(""),[i,d]=p(!1),c=j();return n.manageSome?e(w,{children:[e(x,{title:"Import SKILL.md"}),e(we,{wide:!0,onSubmit:async m=>{m.preventDefault();const u=await c.run(async()=>(await t.request(Mr,{input:{spaceId:s||null,text:a,replaceExisting:i}})).importSkill);u?.skill&&ge(ie(`/skills/${encodeURIComponent(u.skill.id)}`))},mutation:c,fields:["spaceId","text"],submitLabel:"Import skill",cancel:"/skills",children:[n.admin&&e(En,{value:s,onChange:o,allowGlobal:!0,errors:c.errors}),e("div",{class:"field",children:[e("label",{for:"skill-file",children:"SKILL.md file"}),e("input",{id:"skill-file",type:"file",accept:".md,text/markdown",onChange:async m=>l(await m.currentTarget.files?.[0]?.text()??a)})]}),e(ne,{label:"SKILL.md text",name:"text",value:a,onInput:l,errors:c.errors,rows:14,mono:!0,hint:"YAML front matter (name, description, metadata) then the Markdown prompt."}),e("label",{class:"check",children:[e("input",{type:"checkbox",checked:i,onChange:m=>d(m.currentTarget.checked)})," Update the skill of that name if it exists"]})]})]}):e("p",{children:"This key cannot import skills."})}function eo({id:t}){const{api:n,can:r}=$(),s=Z(()=>n.request(Er,{id:t}),[t]),o=s.data?.skill;if(s.data&&!o)return e(w,{children:[e(x,{title:"Skill not found"}),e("p",{children:["No skill ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/skills",children:"Back to Skills"})]})]});const a=o?r.manage(o.space?.id??null)&&(o.space!==null||r.admin):!1;return e(w,{children:[e(x,{title:o?`Skill ${o.name}`:"Skill",children:e(T,{class:"button",to:"/skills",children:"All skills"})}),e(Y,{error:s.error,retry:s.reload}),o&&e(w,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:o.label}),e("dt",{children:"Scope"}),e("dd",{children:o.space?`space ${o.space.name}`:"global"}),e("dt",{children:"Status"}),e("dd",{children:e(E,{tone:J(o.status),children:o.status})}),e("dt",{children:"Production"}),e("dd",{children:[o.version," (",o.charCount," characters)"]}),e("dt",{children:"Candidate"}),e("dd",{children:o.candidateVersion?`${o.candidateVersion}, served to ${o.canaryPercent}% of sessions`:"none"}),e("dt",{children:"Description"}),e("dd",{children:o.description}),e("dt",{children:"Trigger hints"}),e("dd",{children:o.triggerHints.join(", ")||"—"}),e("dt",{children:"Boundary"}),e("dd",{children:o.boundary??"—"})]}),a&&e(no,{skill:o,onChanged:s.reload}),e(ro,{skill:o}),e(so,{skill:o}),e(oo,{skill:o}),a&&e(to,{skill:o,onChanged:s.reload})]})]})}function to({skill:t,onChanged:n}){const{api:r}=$(),s=j(),o=t.status==="ACTIVE"?"DISABLED":"ACTIVE";return e("div",{class:"buttons",children:[e("button",{type:"button",disabled:s.busy,onClick:async()=>{await s.run(async()=>(await r.request(Tt,{input:{id:t.id,status:o}})).setStatus)&&n()},children:o==="ACTIVE"?"Enable skill":"Disable skill"}),e(te,{errors:s.errors,fields:[]})]})}function no({skill:t,onChanged:n}){const{api:r}=$(),s=t.versions.find(P=>P.version===t.version),[o,a]=p(s?.prompt??""),[l,i]=p(""),[d,c]=p("10"),[h,m]=p(String(t.canaryPercent)),[u,f]=p(""),[_,y]=p(null),b=j(),S=j(),g=j(),v=j();R(()=>m(String(t.canaryPercent)),[t.canaryPercent]);const k=t.versions.filter(P=>P.version!==t.version&&P.channel!=="CANDIDATE"),A=async P=>{P.preventDefault();const D=await b.run(async()=>(await r.request(Pr,{input:{skillId:t.id,prompt:o,version:l||null,canaryPercent:d===""?null:Number(d)}})).publishSkillVersion);D?.skillVersion&&(y(`Version ${D.skillVersion.version} published as the candidate.`),i(""),n())},M=async()=>{const P=await S.run(async()=>(await r.request(Nr,{input:{skillId:t.id}})).promoteSkillCandidate);P?.skill&&(y(`Version ${P.skill.version} is now in production.`),n())},W=async P=>{P.preventDefault();const D=await g.run(async()=>(await r.request(Lr,{input:{skillId:t.id,version:u||null}})).rollbackSkill);D?.skill&&(y(`Production rolled back to ${D.skill.version}.`),n())},O=async P=>{P.preventDefault();const D=await v.run(async()=>(await r.request(xr,{input:{skillId:t.id,canaryPercent:Number(h)}})).setSkillCanary);D?.skill&&(y(`The candidate now serves ${D.skill.canaryPercent}% of sessions.`),n())};return e("section",{"aria-labelledby":"channels-title",children:[e("h2",{id:"channels-title",children:"Channels"}),_&&e(Re,{children:_}),e("div",{class:"columns",children:[e("form",{class:"card form",onSubmit:A,"aria-label":"Publish a candidate",children:[e("h3",{children:"Publish a candidate"}),e(ne,{label:"Candidate prompt",name:"prompt",value:o,onInput:a,errors:b.errors,rows:8,mono:!0}),e(C,{label:"Candidate version",name:"version",value:l,onInput:i,errors:b.errors,hint:"Default: the next patch version."}),e(C,{label:"Canary share (%)",name:"canaryPercent",value:d,onInput:c,errors:b.errors,type:"number"}),e(te,{errors:b.errors,fields:["prompt","version","canaryPercent"]}),e("button",{type:"submit",disabled:b.busy,children:"Publish candidate"})]}),e("div",{children:[t.candidateVersion&&e("div",{class:"card",children:[e("h3",{children:["Candidate ",t.candidateVersion]}),e("button",{type:"button",class:"primary",onClick:M,disabled:S.busy,children:["Promote ",t.candidateVersion," to production"]}),e(te,{errors:S.errors,fields:[]}),e("form",{class:"form",onSubmit:O,"aria-label":"Canary share",children:[e(C,{label:"Share of sessions (%)",name:"canaryPercent",value:h,onInput:m,errors:v.errors,type:"number"}),e(te,{errors:v.errors,fields:["canaryPercent"]}),e("button",{type:"submit",disabled:v.busy,children:"Set canary share"})]})]}),k.length>0&&e("form",{class:"card form",onSubmit:W,"aria-label":"Roll back",children:[e("h3",{children:"Roll back production"}),e(U,{label:"Version to serve",name:"version",value:u,onChange:f,errors:g.errors,options:[["","The previous production version"],...k.map(P=>[P.version,`${P.version} (${P.channel})`])]}),e(te,{errors:g.errors,fields:["version"]}),e("button",{type:"submit",disabled:g.busy,children:"Roll back"})]})]})]})]})}function ro({skill:t}){const n=t.versions,r=n[n.length-1]?.version??"",s=n.length>1?n[n.length-2].version:r,[o,a]=p(s),[l,i]=p(r);R(()=>{a(s),i(r)},[s,r]);const d=n.find(m=>m.version===o)?.prompt??"",c=n.find(m=>m.version===l)?.prompt??"",h=n.map(m=>[m.version,`${m.version} (${m.channel})`]);return e("section",{"aria-labelledby":"versions-title",children:[e("h2",{id:"versions-title",children:"Versions"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Versions"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Version"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Characters"})]})}),e("tbody",{children:n.map(m=>e("tr",{children:[e("td",{children:m.version}),e("td",{children:e(E,{tone:J(m.channel),children:m.channel})}),e("td",{children:G(m.createdAt)}),e("td",{children:m.prompt.length})]},m.version))})]}),n.length>1&&e(w,{children:[e("h3",{children:"Diff"}),e("div",{class:"filters",children:[e(U,{label:"From version",name:"from",value:o,onChange:a,options:h}),e(U,{label:"To version",name:"to",value:l,onChange:i,options:h})]}),e("pre",{class:"diff","aria-label":`Diff from ${o} to ${l}`,tabIndex:0,children:Js(d,c).map((m,u)=>e("div",{class:m.kind,children:[e("span",{"aria-hidden":"true",children:m.kind==="added"?"+ ":m.kind==="removed"?"- ":"  "}),e("span",{class:"sr-only",children:m.kind==="added"?"added: ":m.kind==="removed"?"removed: ":""}),m.text]},u))})]})]})}function so({skill:t}){return e("section",{"aria-labelledby":"history-title",children:[e("h2",{id:"history-title",children:"Channel history"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Channel history"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"When"}),e("th",{scope:"col",children:"Action"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"From"}),e("th",{scope:"col",children:"To"}),e("th",{scope:"col",children:"Canary"}),e("th",{scope:"col",children:"By key"})]})}),e("tbody",{children:t.channelHistory.map((n,r)=>e("tr",{children:[e("td",{children:G(n.at)}),e("td",{children:n.action}),e("td",{children:n.channel}),e("td",{children:n.fromVersion??"—"}),e("td",{children:n.toVersion??"—"}),e("td",{children:n.canaryPercent===null?"—":`${n.canaryPercent}%`}),e("td",{children:e("code",{children:n.actor??"—"})})]},r))})]})]})}function oo({skill:t}){const{api:n}=$(),[r,s]=p(t.version),[o,a]=p(null),[l,i]=p(null),d=async()=>{try{const h=await n.request(Rr,{id:t.id,version:r});a(h.skill?.skillMd??null)}catch(h){i(re(h))}},c=o?URL.createObjectURL(new Blob([o],{type:"text/markdown"})):null;return R(()=>()=>c?URL.revokeObjectURL(c):void 0,[c]),e("section",{"aria-labelledby":"export-title",children:[e("h2",{id:"export-title",children:"SKILL.md"}),e("div",{class:"filters",children:[e(U,{label:"Export version",name:"exportVersion",value:r,onChange:s,options:t.versions.map(h=>[h.version,h.version])}),e("button",{type:"button",onClick:d,children:"Export SKILL.md"})]}),l&&e("p",{role:"alert",children:l}),o&&c&&e(w,{children:[e("a",{href:c,download:`${t.name}-SKILL.md`,children:["Download ",t.name,"/SKILL.md"]}),e("pre",{class:"json","aria-label":"SKILL.md",tabIndex:0,children:o})]})]})}function ao(){const{api:t,viewer:n}=$(),r=X(),[s,o]=p(n.space?.id??""),[a,l]=p(""),[i,d]=p(null),[c,h]=p(null),m=he(r.data);return e("section",{"aria-labelledby":"match-title",children:[e("h2",{id:"match-title",children:"Match playground"}),e("form",{class:"card form",onSubmit:async f=>{f.preventDefault(),h(null);try{d((await t.request(qr,{spaceId:s||m[0]?.[0]||"",query:a,topK:10})).matchSkills)}catch(_){h(re(_))}},role:"search","aria-label":"Match skills",children:[!n.space&&e(U,{label:"Space",name:"spaceId",value:s,onChange:o,options:m}),!n.space&&e(me,{spaces:r}),e(Ue,{label:"Request",name:"query",children:f=>e("input",{...f,value:a,onInput:_=>l(_.currentTarget.value)})}),e("button",{type:"submit",children:"Match"})]}),c&&e("p",{role:"alert",children:c}),i&&e("table",{children:[e("caption",{children:"Matches, best first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Skill"}),e("th",{scope:"col",children:"Score"}),e("th",{scope:"col",children:"Lexical"}),e("th",{scope:"col",children:"Semantic"}),e("th",{scope:"col",children:"Boundary"}),e("th",{scope:"col",children:"Why"})]})}),e("tbody",{children:[i.length===0&&e("tr",{children:e("td",{colSpan:6,children:"No skill matches this request."})}),i.map(f=>e("tr",{children:[e("td",{children:e(T,{to:`/skills/${encodeURIComponent(f.skill.id)}`,children:f.skill.name})}),e("td",{children:f.score.toFixed(3)}),e("td",{children:f.lexicalScore.toFixed(3)}),e("td",{children:f.semanticScore===null?"—":f.semanticScore.toFixed(3)}),e("td",{children:f.boundaryFactor<1?`× ${f.boundaryFactor.toFixed(2)} (touches its boundary)`:"—"}),e("td",{children:f.reason??"—"})]},f.skill.id))]})]})]})}const nn=50;function lo({sub:t}){return t==="new"?e(co,{}):t?e(uo,{id:decodeURIComponent(t)}):e(io,{})}function io(){const{api:t,can:n}=$(),r=be("spaces"),s=Z(()=>t.request(Br,{first:nn,after:r.after}),[r.after]),o=s.data?.spaces;return e(w,{children:[e(x,{title:"Spaces",children:n.admin&&e(T,{class:"button primary",to:"/spaces/new",children:"Create space"})}),e(Y,{error:s.error,retry:s.reload}),o&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Spaces"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:o.edges.map(({node:a})=>e("tr",{children:[e("td",{children:[e(T,{to:`/spaces/${encodeURIComponent(a.id)}`,children:a.label})," ",a.isSystem&&e(E,{children:"system"})]}),e("td",{children:e("code",{children:a.name})}),e("td",{children:e("code",{children:a.id})}),e("td",{children:G(a.createdAt)})]},a.id))})]}),e(_e,{label:"Spaces",pages:r,pageSize:nn,connection:o})]})]})}function co(){const{api:t,can:n}=$(),[r,s]=p(""),[o,a]=p(""),l=j();return n.admin?e(w,{children:[e(x,{title:"Create space"}),e(we,{onSubmit:async d=>{d.preventDefault();const c=await l.run(async()=>(await t.request(Or,{input:{name:r,label:o}})).createSpace);c?.space&&ge(ie(`/spaces/${encodeURIComponent(c.space.id)}?created=1`))},mutation:l,fields:["name","label"],submitLabel:"Create space",cancel:"/spaces",children:[e(C,{label:"Name",name:"name",value:r,onInput:s,errors:l.errors,hint:"Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.",required:!0}),e(C,{label:"Label",name:"label",value:o,onInput:a,errors:l.errors,hint:"Display name for people.",required:!0})]})]}):e("p",{children:"Only ADMIN keys create spaces."})}function uo({id:t}){const{api:n}=$(),r=Z(()=>n.request(Ur,{id:t}),[t]),s=r.data?.space,o=new URLSearchParams(window.location.search).has("created");return r.data&&!s?e(w,{children:[e(x,{title:"Space not found"}),e("p",{children:["No space ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/spaces",children:"Back to Spaces"})]})]}):e(w,{children:[e(x,{title:s?`Space ${s.label}`:"Space",children:e(T,{class:"button",to:"/spaces",children:"All spaces"})}),e(Y,{error:r.error,retry:r.reload}),o&&s&&e(Re,{children:["Space ",s.name," created."]}),s&&e(w,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:s.name})}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:s.id})}),e("dt",{children:"Created"}),e("dd",{children:G(s.createdAt)})]}),e("h2",{children:"What this space can see"}),e("div",{class:"columns",children:[e("section",{"aria-labelledby":"visible-tools",children:[e("h3",{id:"visible-tools",children:["Tools (",s.visibleTools.totalCount,")"]}),e("ul",{class:"plain",children:s.visibleTools.edges.map(({node:a})=>e("li",{children:[e(T,{to:`/tools/${encodeURIComponent(a.id)}`,children:a.name})," ",e(E,{children:a.type})," ",e(E,{tone:a.isGlobal?"plain":"busy",children:a.isGlobal?"global":"bound"})]},a.id))}),s.visibleTools.totalCount>s.visibleTools.edges.length&&e(T,{to:`/tools?space=${encodeURIComponent(s.id)}`,children:["All ",s.visibleTools.totalCount," tools"]})]}),e("section",{"aria-labelledby":"visible-skills",children:[e("h3",{id:"visible-skills",children:["Skills (",s.skills.totalCount,")"]}),e("ul",{class:"plain",children:s.skills.edges.map(({node:a})=>e("li",{children:[e(T,{to:`/skills/${encodeURIComponent(a.id)}`,children:a.name})," ",e("span",{class:"muted",children:a.version})," ",!a.space&&e(E,{children:"global"})]},a.id))})]}),e("section",{"aria-labelledby":"visible-kbs",children:[e("h3",{id:"visible-kbs",children:["Knowledge bases (",s.knowledgeBases.totalCount,")"]}),e("ul",{class:"plain",children:s.knowledgeBases.edges.map(({node:a})=>e("li",{children:[e(T,{to:`/knowledge/${encodeURIComponent(a.id)}`,children:a.label})," ",e("span",{class:"muted",children:[a.documentCount," documents"]})]},a.id))})]}),e("section",{"aria-labelledby":"visible-agents",children:[e("h3",{id:"visible-agents",children:["Agents (",s.agents.totalCount,")"]}),e("ul",{class:"plain",children:s.agents.edges.map(({node:a})=>e("li",{children:[e(T,{to:`/agents/${encodeURIComponent(a.id)}`,children:a.name})," ",e("span",{class:"muted",children:a.model})]},a.id))})]})]})]})]})}const po=[{path:"/spaces",name:"Spaces"},{path:"/tools",name:"Tools"},{path:"/mcp-servers",name:"MCP servers"},{path:"/knowledge",name:"Knowledge"},{path:"/skills",name:"Skills"},{path:"/agents",name:"Agents"},{path:"/approvals",name:"Approvals"},{path:"/live-calls",name:"Live calls"},{path:"/api-keys",name:"API keys"}];function ho(){const[t,n]=p(()=>Pt()?{kind:"checking"}:{kind:"signedOut",reason:Un()}),r=qe(o=>{Mn(o??null),n({kind:"signedOut",reason:o??null})},[]),s=qe(async o=>{const a=new rn(o,i=>r(Rn(i))),{viewer:l}=await a.request(Sn,{});a.close(),qn(o),n({kind:"signedIn",key:o,viewer:l})},[r]);return R(()=>{if(t.kind!=="checking")return;const o=Pt();if(!o){n({kind:"signedOut",reason:null});return}s(o).catch(a=>{a instanceof rt||n({kind:"signedOut",reason:re(a)})})},[t.kind,s]),R(()=>{const o=a=>{a.key===Bn&&a.newValue===null&&r("You signed out in another window.")};return window.addEventListener("storage",o),()=>window.removeEventListener("storage",o)},[r]),t.kind==="checking"?e("main",{class:"signin","aria-busy":"true",children:e("p",{children:"Checking the saved API key…"})}):t.kind==="signedOut"?e(mo,{reason:t.reason,onSignIn:s}):e(fo,{apiKey:t.key,viewer:t.viewer,signOut:r},t.key)}function Rn(t){return`You were signed out because Quiver no longer accepts this API key (${t.replace(/\.$/,"")}). It may have been revoked; sign in with another key.`}function mo({reason:t,onSignIn:n}){const[r,s]=p(""),[o,a]=p(null),[l,i]=p(!1);return e("main",{class:"signin",id:"main",children:e("form",{class:"card",onSubmit:async c=>{c.preventDefault();const h=r.trim();if(!h){a("Enter an API key.");return}i(!0),a(null);try{const m=await xn(h);if(!m.ok){a(`This key was refused: ${m.reason}`);return}await n(h)}catch(m){a(re(m))}finally{i(!1)}},"aria-labelledby":"signin-title",children:[e("h1",{id:"signin-title",children:"Quiver console"}),e("p",{class:"hint",children:["Sign in with an API key. ",e("code",{children:"quiver serve"})," prints an ADMIN key on its first run;"," ",e("code",{children:"quiver apikey create"})," makes more."]}),t&&e("p",{class:"signed-out",role:"alert",children:t}),e("div",{class:`field${o?" invalid":""}`,children:[e("label",{for:"api-key",children:"API key"}),e("input",{id:"api-key",name:"apiKey",type:"password",autoComplete:"current-password",value:r,"aria-invalid":o!==null,"aria-describedby":o?"api-key-error":void 0,onInput:c=>s(c.currentTarget.value),autoFocus:!0}),o&&e("p",{class:"field-error",id:"api-key-error",role:"alert",children:o})]}),e("button",{type:"submit",class:"primary",disabled:l,children:"Sign in"}),e("p",{class:"hint",children:[e("a",{href:"/graphql",children:"GraphiQL"})," uses the same key."]})]})})}function fo({apiKey:t,viewer:n,signOut:r}){const[s,o]=p(n),a=De(()=>new rn(t,d=>r(Rn(d))),[t,r]);R(()=>()=>a.close(),[a]),R(()=>{const d=window.setInterval(()=>{a.request(Sn,{}).then(c=>o(c.viewer),()=>{})},Jr);return()=>window.clearInterval(d)},[a]);const l=De(()=>({api:a,viewer:s,can:Zr(s),signOut:r}),[a,s,r]),i=wn();return R(()=>{i===""&&ge(ie("/spaces"),{replace:!0})},[i]),e(In.Provider,{value:l,children:[e("a",{class:"skip",href:"#main",children:"Skip to content"}),e("header",{class:"topbar",children:[e("span",{class:"brand",children:"Quiver"}),e("p",{class:"who","aria-label":"Signed in as",children:[e("span",{class:"badge role",children:s.role})," ",s.space?e(w,{children:["space ",e("strong",{children:s.space.label})," ",e("span",{class:"muted",children:["(",s.space.name,")"]})]}):e(w,{children:"every space"})," ",e("span",{class:"muted",children:["· key ",s.keyLabel?`“${s.keyLabel}” `:"",e("code",{children:s.keyId})]})]}),e("a",{href:"/graphql",class:"graphiql-link",children:"GraphiQL"}),e("button",{type:"button",onClick:()=>r(),children:"Sign out"})]}),e("div",{class:"layout",children:[e("nav",{class:"sidebar","aria-label":"Pages",children:e("ul",{children:po.map(d=>e("li",{children:[e(T,{to:d.path,"aria-current":i===d.path||i.startsWith(`${d.path}/`)?"page":void 0,children:d.name}),d.path==="/approvals"&&e(Ps,{})]},d.path))})}),e("main",{id:"main",class:"content",children:e(go,{path:i})})]})]})}function go({path:t}){const[,n,...r]=t.split("/"),s=r.join("/");switch(n){case"spaces":return e(lo,{sub:s});case"tools":return e(Yr,{sub:s});case"mcp-servers":return e(Hs,{});case"knowledge":return e(Ns,{sub:s});case"skills":return e(Zs,{sub:s});case"agents":return e(us,{sub:s});case"approvals":return e(Rs,{});case"live-calls":return e(Vs,{});case"api-keys":return e(ys,{});case void 0:return null;default:return e(w,{children:[e(x,{title:"Not found"}),e("p",{children:["No page at ",e("code",{children:ie(t)}),". ",e(T,{to:"/spaces",children:"Go to Spaces"}),"."]})]})}}Wn(e(ho,{}),document.getElementById("app"));
